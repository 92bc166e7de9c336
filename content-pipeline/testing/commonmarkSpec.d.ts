/** Types for the `commonmark-spec` package (CommonJS, ships none): the spec's examples. */
declare module 'commonmark-spec' {
  export interface CommonmarkExample {
    markdown: string;
    html: string;
    section: string;
    number: number;
  }
  export const tests: CommonmarkExample[];
  export const text: string;
}
