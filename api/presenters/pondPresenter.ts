import type { Pond, PondRole } from '../models/index.ts';

export interface PondSummaryView {
  id: string;
  slug: string;
  name: string;
  kind: Pond['kind'];
  role: PondRole | null;
}

export function presentPondSummary(pond: Pond, role: PondRole | null): PondSummaryView {
  return { id: pond.id, slug: pond.slug, name: pond.name, kind: pond.kind, role };
}
