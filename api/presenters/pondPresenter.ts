import type { Pond, PondRole, User } from '../models/index.ts';
import { withFontDefaults, type PondFonts } from '../ponds/fontCatalog.ts';
import { withSettingDefaults, type PondSettings } from '../ponds/pondSettings.ts';
import type { PublicReading } from '../policies/publicReading.ts';

/** One entry of `GET /ponds`. */
export interface PondSummaryView {
  id: string;
  slug: string;
  name: string;
  kind: Pond['kind'];
  /** The caller's effective pond-level role; null when only label or page grants reach them. */
  role: PondRole | null;
  trashedAt: string | null;
}

export function presentPondSummary(pond: Pond, role: PondRole | null): PondSummaryView {
  return { id: pond.id, slug: pond.slug, name: pond.name, kind: pond.kind, role, trashedAt: pond.trashedAt?.toISOString() ?? null };
}

export interface PondOwnerView {
  id: string;
  username: string;
  displayName: string;
}

/** What the caller may do with the pond, as the policy module resolved it. */
export interface PondViewer {
  role: PondRole | null;
  capabilities: { write: boolean; admin: boolean };
  /** What the public may read of the pond (policies/publicReading.ts): the same for every caller. */
  publicReading: PublicReading;
}

/** `GET /ponds/:id` and the answer of every pond write. */
export interface PondView {
  id: string;
  slug: string;
  name: string;
  kind: Pond['kind'];
  ownerId: string | null;
  owner: PondOwnerView | null;
  /** Every known key, defaults filled in. */
  settings: PondSettings;
  /** Catalog font ids per slot, defaults filled in. */
  fonts: PondFonts;
  role: PondRole | null;
  capabilities: { write: boolean; admin: boolean };
  /** `pond`: the public reads the whole pond; `pages`: some pages; null: nothing (the app's "Public" badge). */
  publicReading: PublicReading;
  trashedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

export function presentPond(pond: Pond, owner: Pick<User, 'id' | 'username' | 'displayName'> | null, viewer: PondViewer): PondView {
  return {
    id: pond.id,
    slug: pond.slug,
    name: pond.name,
    kind: pond.kind,
    ownerId: pond.ownerId,
    owner: owner ? { id: owner.id, username: owner.username, displayName: owner.displayName } : null,
    settings: withSettingDefaults(pond.settings ?? {}),
    fonts: withFontDefaults(pond.fonts ?? {}),
    role: viewer.role,
    capabilities: { ...viewer.capabilities },
    publicReading: viewer.publicReading,
    trashedAt: pond.trashedAt?.toISOString() ?? null,
    createdAt: pond.createdAt.toISOString(),
    updatedAt: pond.updatedAt.toISOString(),
  };
}

/** The owner as visitors see them: the display name, no username (the sign-in name). */
export type PondOwnerVisitorView = Pick<PondOwnerView, 'id' | 'displayName'>;

/**
 * `GET /ponds/:id` for a visitor (an anonymous caller, or a user who reaches the pond only
 * through a `public` grant): no `settings` (which channels are open, the comment rule are the
 * members' business) and the owner by display name (docs/access-model.md, "Visitors and members").
 */
export type PondVisitorView = Omit<PondView, 'settings' | 'owner'> & { owner: PondOwnerVisitorView | null };

export function presentPondToVisitor(pond: Pond, owner: Pick<User, 'id' | 'displayName'> | null, viewer: PondViewer): PondVisitorView {
  const { settings: _settings, owner: _owner, ...view } = presentPond(pond, null, viewer);
  return { ...view, owner: owner ? { id: owner.id, displayName: owner.displayName } : null };
}
