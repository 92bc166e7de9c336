/**
 * Window events by which islands on a page tell the sidebar (PondSidebar.svelte) to read
 * something again, instead of waiting for its 30-second refresh.
 */
export const FAVORITES_CHANGED_EVENT = 'dt:favorites-changed';
/** A page's title, place or labels changed. */
export const PAGES_CHANGED_EVENT = 'dt:pages-changed';
