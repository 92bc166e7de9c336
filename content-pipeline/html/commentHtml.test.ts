import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderCommentHtml } from './commentHtml.ts';

const REL = 'rel="nofollow noopener noreferrer ugc"';

describe('renderCommentHtml', () => {
  it('renders the allowed inline markup', () => {
    assert.equal(renderCommentHtml('**b** *i* ~~s~~ `c`  \nnext'), '<p><strong>b</strong> <em>i</em> <del>s</del> <code>c</code><br>\nnext</p>');
  });

  it('renders quotes, lists and code blocks', () => {
    assert.equal(
      renderCommentHtml('> q\n\n- a\n\n3. b\n\n```js\nx < y\n```'),
      '<blockquote>\n<p>q</p>\n</blockquote>\n<ul>\n<li>a</li>\n</ul>\n<ol start="3">\n<li>b</li>\n</ol>\n<pre><code>x &#x3C; y\n</code></pre>',
    );
  });

  it('gives every link rel="nofollow noopener noreferrer ugc", autolinks included', () => {
    assert.equal(renderCommentHtml('[a](https://a.example "t") www.b.example'), `<p><a href="https://a.example" ${REL}>a</a> <a href="http://www.b.example" ${REL}>www.b.example</a></p>`);
  });

  it('drops unsafe link targets but keeps the text', () => {
    assert.equal(renderCommentHtml('[x](javascript:alert(1))'), `<p><a ${REL}>x</a></p>`);
  });

  it('returns typed markup as escaped text', () => {
    assert.equal(renderCommentHtml('Hi <b onclick="x">there</b>'), '<p>Hi &#x3C;b onclick="x">there&#x3C;/b></p>');
    assert.equal(renderCommentHtml('<script>alert(1)</script>'), '<p>&#x3C;script>alert(1)&#x3C;/script></p>');
  });

  it('turns images into links labelled with the alt text', () => {
    assert.equal(renderCommentHtml('![a cat](https://x.example/cat.png)'), `<p><a href="https://x.example/cat.png" ${REL}>a cat</a></p>`);
  });

  it('keeps the text of headings, tables and task boxes', () => {
    assert.equal(
      renderCommentHtml('# Title\n\n| a | b |\n| - | - |\n| 1 | 2 |\n\n- [x] done'),
      '<p><strong>Title</strong></p>\n<p>a | b</p>\n<p>1 | 2</p>\n<ul>\n<li>[x] done</li>\n</ul>',
    );
  });

  it('renders a mention as the chip pages show, its label as plain text; a mention of no user id stays text', () => {
    const id = '0b5c1f3e-1111-4222-8333-444455556666';
    assert.equal(renderCommentHtml(`Hi [@Vera **M**](dt-mention:${id})!`), `<p>Hi <span class="dt-mention" data-dt-mention="${id}">@Vera M</span>!</p>`);
    assert.equal(renderCommentHtml('[@x](dt-mention:javascript:alert(1))'), '<p>@x</p>');
    // Typed HTML cannot make a chip; inline code keeps the Markdown as written.
    assert.equal(renderCommentHtml(`<span class="dt-mention" data-dt-mention="${id}">x</span>`), `<p>&#x3C;span class="dt-mention" data-dt-mention="${id}">x&#x3C;/span></p>`);
    assert.equal(renderCommentHtml(`\`[@a](dt-mention:${id})\``), `<p><code>[@a](dt-mention:${id})</code></p>`);
  });
});
