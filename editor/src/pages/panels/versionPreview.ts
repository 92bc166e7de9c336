/**
 * A version's rendered HTML (already sanitized by the content pipeline) made fit to sit next to
 * the page: its ids go, so the preview's headings do not repeat the body's `h-…` ids (the
 * outline and `#` links would find the preview's), and its in-page links go with them.
 */
export function previewHtml(html: string): string {
  const template = document.createElement('template');
  template.innerHTML = html;
  for (const element of template.content.querySelectorAll('[id]')) element.removeAttribute('id');
  for (const link of template.content.querySelectorAll('a[href^="#"]')) link.removeAttribute('href');
  return template.innerHTML;
}
