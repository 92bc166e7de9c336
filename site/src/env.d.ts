declare namespace App {
  interface Locals {
    /**
     * Loopback origin of the API this page is served next to (set by api/http/mountSite.ts),
     * so server-side reads do not depend on the public host name or a proxy.
     */
    apiOrigin?: string;
    /** `/api/v1` reads handed to the API's Express app in this process (api/http/inProcessFetch.ts). */
    fetchApi?: import('../../api/http/inProcessFetch.ts').InProcessFetch;
    /**
     * The generated public document to render (set only by api/publicPages/astroDocumentRenderer.ts
     * for site/src/pages/-dt/public-document.astro; any other request to that page gets a 404).
     */
    publicDocument?: import('../../api/publicPages/publicDocumentModel.ts').PublicDocumentModel;
  }
}
