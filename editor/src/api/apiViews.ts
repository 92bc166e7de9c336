/**
 * The JSON views of `/api/v1` the browser client reads. They mirror the API's presenters;
 * the error codes come from the API itself.
 */
import type { ErrorCode } from '../../../api/http/errorCodes.ts';
import type { Locale } from '../../../api/i18n/locale.ts';
import type { NotificationPayload, NotificationType } from '../../../api/notifications/notificationFanOut.ts';
import type { NotificationView } from '../../../api/notifications/notificationList.ts';
import type { WatchView } from '../../../api/notifications/watches.ts';
import type { ApiTokenView } from '../../../api/presenters/apiTokenPresenter.ts';

export type { ErrorCode, Locale };

/** A personal access token of `GET /users/me/api-tokens`: never the secret. */
export type { ApiTokenView };

export type DigestFrequency = 'hourly' | 'daily' | 'off';
export type RegistrationMode = 'open' | 'closed';

export interface UserView {
  id: string;
  username: string;
  email: string;
  displayName: string;
  locale: Locale | null;
  status: 'ACTIVE' | 'unconfirmed' | 'disabled';
  isSiteAdmin: boolean;
  emailVerified: boolean;
  digestFrequency: DigestFrequency;
  autoWatchOwnPages: boolean;
  autoWatchOnComment: boolean;
  createdAt: string;
}

/** `GET /auth/methods`: how one can sign in here; `oidc` null when no identity provider is configured. */
export interface AuthMethodsView {
  password: true;
  oidc: { label: string } | null;
}

/** One external sign-in linked to the own account (`GET /users/me/identities`). */
export interface LoginIdentityView {
  id: string;
  /** `oidc:<issuer>`. */
  provider: string;
  /** The provider's label as the instance names it. */
  label: string;
  /** The address the provider gave when it was linked; null when it shared none. */
  email: string | null;
  linkedAt: string;
}

export interface LoginIdentitiesView {
  items: LoginIdentityView[];
  /** Whether the account can also sign in with a password. */
  hasPassword: boolean;
}

export interface InstanceView {
  name: string | null;
  baseUrl: string | null;
  defaultLocale: Locale;
}

export interface SetupStepsView {
  admin: boolean;
  instance: boolean;
  smtp: boolean;
  registration: boolean;
}

export interface SetupStateView {
  completed: boolean;
  completedAt: string | null;
  steps: SetupStepsView;
  smtpConfigured: boolean;
  /** The setup admin went on without a mail relay (`POST /setup/smtp/skip`). */
  smtpSkipped: boolean;
  instance: InstanceView;
  registrationMode: RegistrationMode;
}

/** `GET /ponds/:id` (api/presenters/pondPresenter.ts). */
export interface PondView {
  id: string;
  slug: string;
  name: string;
  kind: 'personal' | 'shared';
  settings: { commentPolicy: 'readers' | 'editors'; apiEnabled: boolean; mcpEnabled: boolean; sidebarView: SidebarView };
  fonts: { body: string; heading: string; code: string };
  role: 'pond_admin' | 'editor' | 'reader' | null;
  capabilities: { write: boolean; admin: boolean };
  /** What the public may read: the whole pond, some pages, or nothing (the "Public" badge). */
  publicReading: 'pond' | 'pages' | null;
  trashedAt: string | null;
}

/** A catalog font with what a live sample needs (site/src/pages/[pondSlug]/-/settings.astro). */
export interface FontChoiceView {
  id: string;
  name: string;
  category: 'sans' | 'serif' | 'mono';
  stack: string;
  /** The regular Latin face to load for the sample; null for a system font. */
  sample: { family: string; urlPath: string } | null;
}

export interface PondSummaryView {
  id: string;
  slug: string;
  name: string;
  kind: 'personal' | 'shared';
  /** Null when only label or page grants reach the caller. */
  role: 'pond_admin' | 'editor' | 'reader' | null;
}

/** `GET /users/me/feed-token`: never the secret. */
export interface FeedTokenStatusView {
  exists: boolean;
  createdAt: string | null;
  lastUsedAt: string | null;
}

/** `POST /users/me/feed-token`: the secret, once, with a ready feed address per pond of the user. */
export interface FeedTokenIssuedView {
  token: string;
  createdAt: string;
  feeds: { pondId: string; pondSlug: string; pondName: string; url: string }[];
}

/** A page in `GET /ponds/:id/pages` (api/presenters/pagePresenter.ts `PageView`). */
export interface PageSummaryView {
  id: string;
  pondId: string;
  slug: string;
  title: string;
  /** Null at the top level, and when the caller may not read the parent. */
  parentId: string | null;
  position: string;
  trashedAt: string | null;
  createdAt: string;
  updatedAt: string;
  /** Sorted label ids; `GET /ponds/:id/pages` answers them, other summaries may not. */
  labelIds?: string[];
}

/** `GET /ponds/:id/favorites`: a starred page. */
export interface FavoriteView extends PageSummaryView {
  favoritedAt: string;
}

/** `GET /ponds/:id/labels`: a label in tree order, with how many pages the caller can read carry it. */
export interface LabelSummaryView {
  id: string;
  parentId: string | null;
  name: string;
  color: string;
  depth: number;
  pageCount: number;
  subtreePageCount: number;
}

export type SidebarView = 'tree' | 'labels';

/** `GET /pages/:id`. */
export interface PageDetailView extends PageSummaryView {
  labelIds: string[];
  canWrite: boolean;
  /** Whether the public may read the page (the "Public" badge). */
  publicRead: boolean;
  pond: { id: string; slug: string; name: string };
}

/** A hit of `GET /search` (docs/search.md); matches in `title` and `snippet` wrapped in U+E000 … U+E001. */
export interface SearchHitView {
  id: string;
  title: string;
  slug: string;
  pond: { id: string; slug: string; name: string };
  labels: { id: string; name: string; color: string }[];
  snippet: string;
  match: 'fulltext' | 'substring';
}

export type { NotificationPayload, NotificationType, NotificationView, WatchView };

/** `GET /notifications`: unread first, then newest. */
export interface NotificationListView extends ListView<NotificationView> {
  unreadCount: number;
}

/** `GET /watches/page/:id` (`viaPond`: the pond is watched) and `GET /watches/pond/:id` (no `viaPond`). */
export interface WatchStateView {
  watching: boolean;
  viaPond?: boolean;
}

export interface ListView<T> {
  items: T[];
  nextCursor: string | null;
}

export interface FieldProblem {
  path: string;
  code: string;
  message: string;
}

export interface ApiErrorBody {
  error: {
    code: ErrorCode;
    message: string;
    details?: Record<string, unknown>;
  };
}
