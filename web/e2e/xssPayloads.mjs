/* global document -- page.evaluate callbacks run in the browser */
// The stored-XSS browser test's payloads, its DOM check and its small
// fixtures (xss.test.mjs).

/** The payloads; each would set `window.__xss` (or open a dialog) if it ran. */
export const P = {
  script: '<script>window.__xss=(window.__xss||0)+1</script>',
  img: '<img src=x onerror="window.__xss=(window.__xss||0)+1">',
  svg: '<svg onload="window.__xss=(window.__xss||0)+1">',
  js: 'javascript:window.__xss=1',
  iframe: '"><iframe srcdoc="<script>parent.__xss=1</script>">',
  md: '[x](javascript:alert(1))',
};
/** All of them, for the longer fields; each field's text starts with its own label. */
export const ALL = Object.values(P).join(' ');
export const field = (label) => `${label} ${ALL}`;

/** The values of the short fields (each within its server limit). */
export const V = {
  authorName: 'Au <img src=x onerror=window.__xss=1>', // display names: at most 50
  viewerName: 'Vi <svg onload=window.__xss=1>',
  workTitle: `WT ${P.img}`, // 100
  articleTitle: `AT ${P.svg}`,
  characterName: `CN ${P.script}`, // 64
  channelName: `CH ${P.iframe}`, // 64
  modelName: `MN ${P.img}`, // 80
  activityTitle: `AC ${P.svg}`, // 100
  surveyTitle: `SV ${P.script}`, // 120
  bannerTitle: `BN ${P.img}`, // 80
  popupTitle: `PP ${P.svg}`,
  moduleTitle: `MO ${P.img}`, // 80
};
/** Markdown with the payloads, raw HTML and javascript: links (articles, activity rules). */
export const MARKDOWN = (label) =>
  [
    `## ${label} heading`,
    `Some **bold ${label}** text and a [safe link](https://example.com/).`,
    ALL,
    `[click ${label}](javascript:window.__xss=1)`,
    `<a href="javascript:window.__xss=1">raw ${label}</a>`,
    `![pic](javascript:window.__xss=1)`,
    `<div onmouseover="window.__xss=1" style="position:fixed;inset:0">cover ${label}</div>`,
    P.script,
  ].join('\n\n');

/**
 * What of the payloads became live in the page: scripts carrying `__xss`,
 * event-handler attributes (React never writes one), srcdoc, iframes,
 * javascript: URLs, and, outside the sanitised Markdown bodies, the
 * payloads' `<img src=x>` and `<svg>`.
 */
export async function injected(page) {
  return page.evaluate(() => {
    const found = [];
    const markdown = '[data-testid="article-body"], [data-testid="activity-rules"]';
    const walk = (root) => {
      for (const el of root.querySelectorAll('*')) {
        const tag = el.tagName.toLowerCase();
        if (tag === 'script' && /__xss|alert/.test(el.textContent ?? '')) found.push(`script: ${el.textContent}`);
        if (tag === 'iframe') found.push(`iframe ${el.getAttribute('srcdoc') ?? el.getAttribute('src')}`);
        for (const a of el.attributes) {
          const name = a.name.toLowerCase();
          // eslint-disable-next-line no-control-regex -- browsers skip these in a URL's scheme
          const value = a.value.replace(/[\s\u0000-\u001f]/g, '').toLowerCase();
          if (name.startsWith('on')) found.push(`${tag}[${name}="${a.value}"]`);
          if (name === 'srcdoc') found.push(`${tag}[srcdoc="${a.value}"]`);
          if (['href', 'src', 'action', 'formaction', 'xlink:href', 'data'].includes(name) && value.startsWith('javascript:')) found.push(`${tag}[${name}="${a.value}"]`);
        }
        if (!el.closest(markdown)) {
          if (tag === 'img' && el.getAttribute('src') === 'x') found.push('img[src="x"]');
          if (tag === 'svg' && el.hasAttribute('onload')) found.push('svg[onload]');
        }
        if (el.shadowRoot) walk(el.shadowRoot);
      }
    };
    walk(document);
    return found;
  });
}
