/** `GET /search` requests for the search tests: parameters, repeated ones as arrays. */
export type SearchParams = Record<string, string | number | string[]>;

export function searchPath(params: SearchParams): string {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) for (const one of Array.isArray(value) ? value : [value]) query.append(key, String(one));
  return `/search?${query}`;
}
