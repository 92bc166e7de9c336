/**
 * Where to go after signing in, taken from a `next` parameter: only a path on this very
 * site, anything else falls back to the home page. Used by the login page on the server
 * (its redirect of a signed-in visitor) and by the login form in the browser, so both
 * follow the same value.
 *
 * Browsers forgive a lot when they resolve a URL: they drop tabs and line breaks
 * anywhere in it and read `\` as `/`, so `/\t/evil.example` and `/\evil.example` both
 * become `//evil.example`, another host. Such values are refused outright; what is left
 * is parsed with `URL` and must keep the origin it was resolved against.
 */
const HOME = '/';
/** Any origin will do: only whether the value stays on it matters. */
const PROBE_ORIGIN = 'http://same-origin.invalid';
/** C0 controls (tab, CR, LF included), DEL and C1 controls. */
const CONTROL_CHARACTER = /[\u0000-\u001f\u007f-\u009f]/;

export function safeNextPath(value: string | null | undefined): string {
  if (!value || !value.startsWith('/') || value.startsWith('//') || value.includes('\\') || CONTROL_CHARACTER.test(value)) return HOME;
  let url: URL;
  try {
    url = new URL(value, PROBE_ORIGIN);
  } catch {
    return HOME;
  }
  if (url.origin !== PROBE_ORIGIN) return HOME;
  // The parsed form, not the raw value: exactly what was checked is what the browser gets.
  // Dot segments can leave a path that starts with `//` (`/.//evil.example`), which a browser
  // would read as another host again.
  const path = `${url.pathname}${url.search}${url.hash}`;
  return path.startsWith('//') ? HOME : path;
}
