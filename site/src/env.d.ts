declare namespace App {
  interface Locals {
    /**
     * Loopback origin of the API this page is served next to (set by api/http/mountSite.ts),
     * so server-side reads do not depend on the public host name or a proxy.
     */
    apiOrigin?: string;
  }
}
