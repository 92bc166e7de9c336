import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_SVG_SNAPSHOT_LENGTH, sanitizeSvg } from './svgSanitizer.ts';

describe('sanitizeSvg', () => {
  it('keeps drawing elements, presentation attributes and internal references (to the prefixed ids)', () => {
    assert.equal(
      sanitizeSvg('<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><defs><linearGradient id="g"><stop offset="0" stop-color="red"/></linearGradient><circle id="dot" r="1"/></defs><rect width="10" height="10" fill="url(#g)" stroke-width="2"/><use href="#dot" x="5"/><text x="1" y="9" font-family="sans-serif">a &lt; b</text></svg>'),
      '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 10 10"><defs><linearGradient id="user-content-g"><stop offset="0" stop-color="red"></stop></linearGradient><circle id="user-content-dot" r="1"></circle></defs><rect width="10" height="10" fill="url(#user-content-g)" stroke-width="2"></rect><use href="#user-content-dot" x="5"></use><text x="1" y="9" font-family="sans-serif">a &#x3C; b</text></svg>',
    );
  });

  it('prefixes every id and class with user-content-, and every reference to an id, so a snapshot cannot clobber the app', () => {
    assert.equal(
      sanitizeSvg('<svg class="main app" xmlns:xlink="http://www.w3.org/1999/xlink"><g id="main" class="x"><clipPath id="app"><rect/></clipPath></g><rect clip-path="URL( \'#app\' )" mask="url(\\#m)" filter="url(#f) url(#g)"/><use xlink:href="#main"/></svg>'),
      '<svg class="user-content-main user-content-app" xmlns:xlink="http://www.w3.org/1999/xlink"><g id="user-content-main" class="user-content-x"><clipPath id="user-content-app"><rect></rect></clipPath></g><rect clip-path="URL( &#x27;#user-content-app&#x27; )" mask="url(\\#user-content-m)" filter="url(#user-content-f) url(#user-content-g)"></rect><use xlink:href="#user-content-main"></use></svg>',
    );
  });

  it('drops scripts, styles and foreignObject with their content', () => {
    assert.equal(sanitizeSvg('<svg><script>alert(1)</script><style>*{}</style><foreignObject><p>html</p></foreignObject><g></g></svg>'), '<svg><g></g></svg>');
  });

  it('drops event handlers and style attributes', () => {
    assert.equal(sanitizeSvg('<svg onload="alert(1)"><rect onclick="x()" style="fill:red" fill="red"/></svg>'), '<svg><rect fill="red"></rect></svg>');
  });

  it('keeps only fragment hrefs', () => {
    assert.equal(
      sanitizeSvg('<svg xmlns:xlink="http://www.w3.org/1999/xlink"><use href="other.svg#a"/><use xlink:href="https://evil.example/x.svg#a"/><use xlink:href="#a"/><use href="data:image/svg+xml,&lt;svg/&gt;"/></svg>'),
      '<svg xmlns:xlink="http://www.w3.org/1999/xlink"><use></use><use></use><use xlink:href="#user-content-a"></use><use></use></svg>',
    );
  });

  it('drops attributes with external url() references', () => {
    assert.equal(sanitizeSvg('<svg><rect fill="url(https://x.example/p.svg#g)" filter="url( #f )" mask="url(\'#m\')"/></svg>'), '<svg><rect filter="url( #user-content-f )" mask="url(&#x27;#user-content-m&#x27;)"></rect></svg>');
  });

  it('unwraps links and drops images, animation and unknown elements', () => {
    assert.equal(
      sanitizeSvg('<svg><a href="javascript:alert(1)"><circle r="1"/></a><image href="http://x/y.png"/><animate attributeName="href" to="javascript:alert(1)"/><set attributeName="onload" to="alert(1)"/><iframe src="x"></iframe></svg>'),
      '<svg><circle r="1"></circle></svg>',
    );
  });

  it('drops prolog, doctype, comments and anything outside the root svg', () => {
    assert.equal(sanitizeSvg('<?xml version="1.0"?><!DOCTYPE svg><!-- c --><svg><g/></svg><script>alert(1)</script>'), '<svg><g></g></svg>');
  });

  it('returns null for input without an svg element or over the size limit', () => {
    assert.equal(sanitizeSvg('just text'), null);
    assert.equal(sanitizeSvg('<script>alert(1)</script>'), null);
    assert.equal(sanitizeSvg(`<svg>${' '.repeat(MAX_SVG_SNAPSHOT_LENGTH)}</svg>`), null);
  });
});
