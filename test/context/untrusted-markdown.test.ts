/**
 * What the model sees of text strangers wrote, construct by construct: no more than a person sees
 * on the rendered GitHub page. Each row is a Markdown or HTML form and the exact text the model
 * gets; the near misses (forms GitHub shows as written) are kept as they are.
 */
import { describe, expect, it } from 'vitest';
import { createWorkMeter } from '../../src/context/linear-scan.js';
import { splitLines } from '../../src/context/untrusted-markdown.js';
import {
  cutRaw,
  fenceUntrusted,
  markInvisible,
  neutralizeFences,
  sanitizeUntrusted,
} from '../../src/context/untrusted.js';

describe('hidden HTML elements go, with their content', () => {
  it.each<[string, string]>([
    ...[
      'script',
      'style',
      'template',
      'noscript',
      'iframe',
      'object',
      'svg',
      'math',
      'title',
      'datalist',
      'noembed',
      'noframes',
      'rp',
    ].map((tag): [string, string] => [`a<${tag}>x</${tag}>b`, 'ab']),
    // A void element holds nothing: what follows it is on the page (its end tag means nothing).
    ['a<embed>x</embed>b', 'ax</embed>b'],
    ['a<dialog>x</dialog>b', 'ab'],
    ['a<SCRIPT>x</Script>b', 'ab'],
    ['a<iframe src=x>y</iframe>b', 'ab'],
    ['a<p hidden>x</p>b', 'ab'],
    ['a<p HIDDEN>x</p>b', 'ab'],
    ['a<p style="display:none">x</p>b', 'ab'],
    ['a<p style="visibility: hidden">x</p>b', 'ab'],
    ['a<p style="font-size:0">x</p>b', 'ab'],
    ['a<p style="opacity:0">x</p>b', 'ab'],
    ['a<p style="OPACITY: 0.0;">x</p>b', 'ab'],
    ['a<p style="opacity:00">x</p>b', 'ab'],
    // HTML ignores `/>` on an element that is not void: the hidden div stays open to the end.
    ['a<div hidden/>b', 'a'],
    ['a<div hidden />b', 'a'],
    ['a<img hidden src=u>b', 'ab'],
    ['a<svg/>b', 'ab'],
    ['a<div hidden>x<div>y</div>z</div>w', 'aw'],
    ['a<div hidden>x</divx>y</div>b', 'ab'],
    ['a<div hidden>x</DIV >b', 'ab'],
    ['a<div hidden>x</div', 'a'],
    ['a<span hidden>x</span>b<span hidden>y</span>c', 'abc'],
    // A browser reads a tag to the next `>`: a `<` inside is one more attribute, the tag still hides.
    ['a<p hidden <i>x</i></p>b', 'ab'],
    ['a<p <i hidden>x</p>b', 'ab'],
    ['a<div class=x <b style="display:none">y</div>b', 'ab'],
    // The `hidden` belongs to the `<b>` that holds it (title=`<p`, then hidden): b goes, to its own end.
    ['a<b title=<p hidden>x</b>c', 'ac'],
  ])('%j -> %j', (input, out) => {
    expect(sanitizeUntrusted(input)).toBe(out);
  });

  it.each<[string, string]>([
    ['a<p style="opacity:0.5">x</p>b', 'a<p>x</p>b'],
    ['a<p data-hiddenx="1">x</p>b', 'a<p>x</p>b'],
    ['a<scripts>x</scripts>b', 'a<scripts>x</scripts>b'],
    ['a<script-x>y</script-x>b', 'a<script-x>y</script-x>b'],
    ['a<div hidden', 'a<div hidden'],
    ['a<1div hidden>x', 'a<1div hidden>x'],
    ['a< div hidden>x</div>b', 'a< div hidden>x</div>b'],
  ])('shown on the page, so kept: %j -> %j', (input, out) => {
    expect(sanitizeUntrusted(input)).toBe(out);
  });
});

describe('HTML read as a browser reads it (issue 26: a `>` inside a quoted attribute)', () => {
  it.each<[string, string]>([
    // The quoted value holds `>`: the tag, and its `hidden`, go on past it.
    ['a<p title="a>b" hidden>secret</p>b', 'ab'],
    ["a<p title='a>b' hidden>secret</p>b", 'ab'],
    // Unquoted, a `>` can only come as a reference; the tag ends at the real one.
    ['a<p title=a&gt;b hidden>secret</p>b', 'ab'],
    // Nested: a visible element whose attribute holds `>` around a hidden one that holds more.
    ['a<div title="x>y"><p title="c>d" hidden><span title="e>f">secret</span></p>b</div>', 'a<div>b</div>'],
    ['a<p hidden title="a>b">secret</p>b', 'ab'],
    ['a<span style="display:none" title="a>b">secret</span>b', 'ab'],
    // A quoted `>` in a visible tag is not its end either: the attribute goes with the rest.
    ['a<b title="x>y">bold</b>', 'a<b>bold</b>'],
    // `--!>` ends a comment for a browser, but the plain search for `-->` that runs first (code blocks
    // included) takes the rest: the safe side. `<?x>` and `<!x>` are comments to a browser too.
    ['x<!--a--!>y', 'x'],
    ['a<?php echo 1 ?>b<!doctype html>c<!x>d', 'abcd'],
    // Raw text: a `</div>` inside a <script> (or <textarea>) ends nothing; the hidden div goes on.
    ['a<div hidden><script>"</div>"</script>secret</div>b', 'ab'],
    ['a<div hidden><textarea></div></textarea>secret</div>b', 'ab'],
    // CDATA inside <svg>: its `</svg>` is text.
    ['a<svg><![CDATA[ > </svg> ]]>secret</svg>b', 'ab'],
    // An SVG foreignObject left open: a browser ignores the `</svg>`, and so does the rule here.
    ['a<svg><foreignObject></svg>secret', 'a'],
    ['a<svg><foreignObject><script>"</foreignObject></svg>secret</script></foreignObject></svg>b', 'ab'],
    // A visible textarea shows its content as written, tags and all.
    ['<textarea><p hidden>shown</p></textarea>', '<textarea><p hidden>shown</p></textarea>'],
  ])('%j -> %j', (input, out) => {
    expect(sanitizeUntrusted(input)).toBe(out);
  });

  it('a hidden element opened before a code block hides the block too, up to its end tag after it', () => {
    expect(sanitizeUntrusted('a\n<div hidden>\n\n```\ncode\n```\n\nsecret\n</div>\nb')).toBe('a\n\nb');
    expect(sanitizeUntrusted('a\n<div hidden>\n\n```\ncode\n```\nsecret to the end')).toBe('a\n');
  });
});

describe('images: alt text and titles go, the address stays', () => {
  it.each<[string, string]>([
    ['![a]( https://x.test/a )', '[image: https://x.test/a]'],
    ["![a](u 'title')", '[image: u]'],
    ['![a](u (title))', '[image: u]'],
    ['![a](u "t" )', '[image: u]'],
    ['![a\\]b](u)', '[image: u]'],
    ['![a](u)![b](v)', '[image: u][image: v]'],
    ['![](u)', '[image: u]'],
    [`x![a](${'y'.repeat(310)})`, `x[image: ${'y'.repeat(300)}]`],
    ['![a][r]', '[image]'],
    ['![a][]', '[image]'],
    ['<img src=u alt=x>', '[image: u]'],
    ['<img alt=x>', '[image]'],
    ["<img src='u' alt=x/>", '[image: u]'],
    ['<IMG SRC="u">', '[image: u]'],
    ['<img src=u><img src=v>', '[image: u][image: v]'],
    [`<img src=${'z'.repeat(310)}>`, `[image: ${'z'.repeat(300)}]`],
  ])('%j -> %j', (input, out) => {
    expect(sanitizeUntrusted(input)).toBe(out);
  });

  it.each(['![a](u "t" x)', '![a](u', '![a]u', '![a] [r]', '![a][r', '<img src=u'])(
    'not an image on GitHub, so kept as written: %j',
    (input) => {
      expect(sanitizeUntrusted(input)).toBe(input);
    },
  );

  it('a tag that only starts like img loses its attributes like any other', () => {
    expect(sanitizeUntrusted('<imgx src=u>')).toBe('<imgx>');
  });
});

describe('details, links and attributes', () => {
  it.each<[string, string]>([
    ['<details open>x</details>', '\nx\n'],
    ['<DETAILS>x</DETAILS>', '\nx\n'],
    ['<summary>s</summary>', '\ns\n'],
    ['<detailsx>y</detailsx>', '<detailsx>y</detailsx>'],
    ['[a](u "t")', '[a](u)'],
    ["[a](u 't')", '[a](u)'],
    ['[a](u (t))', '[a](u)'],
    ['[a](<u> "t")', '[a](<u>)'],
    ['[a](u)', '[a](u)'],
    ['[a](u "t" x)', '[a](u "t" x)'],
    ['[a](u "t"', '[a](u "t"'],
    ['<b title="x">y</b>', '<b>y</b>'],
    ['<br />', '<br/>'],
    ['<br/>', '<br/>'],
    ["<a href='u' title=t>x</a>", '<a href="u">x</a>'],
    ['<a href="a&amp;b&quot;c">x</a>', '<a href="a&amp;b&quot;c">x</a>'],
    ['</b title="psst">', '</b>'],
    ['Vec<String> and Option<T>', 'Vec<String> and Option<T>'],
    ['<https://x.test/a> <a@b.test>', '<https://x.test/a> <a@b.test>'],
    ['<a HREF="u">x</a>', '<a href="u">x</a>'],
    ['<a  href = "u" >x</a>', '<a href="u">x</a>'],
    ['<x-y data-a=1>', '<x-y>'],
    ['<a\tb=1>x', '<a>x'],
    ['<a>x</a>', '<a>x</a>'],
    ['<a/>', '<a/>'],
    ['<1a b>', '<1a b>'],
    ['<a b', '<a b'],
  ])('%j -> %j', (input, out) => {
    expect(sanitizeUntrusted(input)).toBe(out);
  });
});

describe('link reference definitions', () => {
  it.each<[string, string]>([
    ['[A]: https://x.test/a "t"\nsee [a]', '[A]: https://x.test/a\nsee [a]'],
    ['[a]: http://x.test/a\nsee [a]', '[a]: http://x.test/a\nsee [a]'],
    ['[a]: <https://x.test/a>\nsee [a]', '[a]: <https://x.test/a>\nsee [a]'],
    ['[a]: ftp://x.test/a\nsee [a]', 'see [a]'],
    ['[a]: https://x.test/a\nsee [b]', 'see [b]'],
    ['   [a]: https://x\nsee [a]', '[a]: https://x\nsee [a]'],
    ['[a]:https://x\n[a]', '[a]: https://x\n[a]'],
    ['[a]:\thttps://x "t"\n[a]', '[a]: https://x\n[a]'],
    // Not definitions: indented four spaces (code), an empty label, a bracket in the label.
    ['    [a]: https://x\nsee [a]', '    [a]: https://x\nsee [a]'],
    ['[]: https://x\n[]', '[]: https://x\n[]'],
    ['[a[b]: https://x', '[a[b]: https://x'],
  ])('%j -> %j', (input, out) => {
    expect(sanitizeUntrusted(input)).toBe(out);
  });
});

describe('code fences: shown literally, so kept literally', () => {
  it.each<[string, string]>([
    ['```\n<div hidden>x</div>\n```', '```\n<div hidden>x</div>\n```'],
    ['~~~\n<div hidden>x</div>\n~~~', '~~~\n<div hidden>x</div>\n~~~'],
    ['   ```\n<p hidden>shown</p>\n', '   ```\n<p hidden>shown</p>\n'],
    ['  ```\n<p hidden>x</p>\n  ```\n<p hidden>y</p>', '  ```\n<p hidden>x</p>\n  ```\n'],
    // A fence closes only with the same character, at least as long, nothing after it.
    ['```\n<p hidden>x</p>\n``\n<p hidden>y</p>', '```\n<p hidden>x</p>\n``\n<p hidden>y</p>'],
    ['````\nx\n```\n<p hidden>y</p>', '````\nx\n```\n<p hidden>y</p>'],
    ['~~~\nx\n```\n<p hidden>y</p>', '~~~\nx\n```\n<p hidden>y</p>'],
    ['```\nx\n``` y\n<p hidden>z</p>', '```\nx\n``` y\n<p hidden>z</p>'],
    ['```\nx\n   ```\n<p hidden>y</p>', '```\nx\n   ```\n'],
    // A backtick fence with a backtick in its info string is not a fence.
    ['``` a`b\n<div hidden>x</div>', '``` a`b\n'],
    // Four spaces or a tab: not a fence on GitHub, so what follows is rendered (and hidden).
    ['    ```\n<p hidden>secret</p>\n', '    ```\n\n'],
    ['\t```\n<p hidden>secret</p>\n', '\t```\n\n'],
    [
      '```\ncode\n    ```\n<p hidden>still code</p>\n```\n<p hidden>y</p>',
      '```\ncode\n    ```\n<p hidden>still code</p>\n```\n',
    ],
  ])('%j -> %j', (input, out) => {
    expect(sanitizeUntrusted(input)).toBe(out);
  });
});

describe('comments, blank lines, line ends and the size cap', () => {
  it.each<[string, string]>([
    ['x<!--a-->y<!--b-->z', 'xyz'],
    ['x<!---->y', 'xy'],
    ['x<!--a--!>y-->z', 'xz'],
    ['a\n\n\nb', 'a\n\nb'],
    ['a\n\n\n\nb', 'a\n\nb'],
    ['a\r\n\r\n\r\n\r\nb', 'a\n\nb'],
    ['a\n\nb', 'a\n\nb'],
  ])('%j -> %j', (input, out) => {
    expect(sanitizeUntrusted(input)).toBe(out);
  });

  it('cuts at the cap, never inside a surrogate pair, and says how much', () => {
    expect(sanitizeUntrusted('abcdef', { maxChars: 4 })).toBe('abcd\n[... 2 characters cut ...]');
    expect(sanitizeUntrusted('abcd', { maxChars: 4 })).toBe('abcd');
    expect(cutRaw('abc', 3)).toEqual({ text: 'abc', cut: 0 });
    expect(cutRaw('abcd', 3)).toEqual({ text: 'abc', cut: 1 });
    expect(cutRaw('a\u{1F600}b', 2)).toEqual({ text: 'a', cut: 3 });
    expect(cutRaw('ab\uDE00c', 3)).toEqual({ text: 'ab\uDE00', cut: 1 });
    // Under or at the cap nothing is cut, not even a lone high surrogate at the very end.
    expect(cutRaw('ab', 5)).toEqual({ text: 'ab', cut: 0 });
    expect(cutRaw('a\uD83D', 2)).toEqual({ text: 'a\uD83D', cut: 0 });
  });

  it('shows every invisible character in code, by its code point', () => {
    expect(markInvisible('a\u00ADb\u200Bc\uFEFF\u{E0041}\u2064\u2060')).toBe(
      'a[U+00AD]b[U+200B]c[U+FEFF][U+E0041][U+2064][U+2060]',
    );
  });
});

describe('fences the model is given', () => {
  it.each<[string, string]>([
    ['<untrusted', '(untrusted'],
    ['<   untrusted', '(untrusted'],
    ['< /untrusted', '(/untrusted'],
    ['</ untrusted-x>', '(/ untrusted-x>'],
    ['<UnTrUsTeD', '(UnTrUsTeD'],
    ['<\uFE64untrusted', '<(untrusted'],
    ['\uFE64untrusted', '(untrusted'],
    ['\u27E8untrusted', '(untrusted'],
    ['\u3008/untrusted', '(/untrusted'],
    ['\u276Cuntrusted', '(untrusted'],
    ['\u2039untrusted', '(untrusted'],
    ['\uFF1Cuntrusted', '(untrusted'],
    ['<untrust', '<untrust'],
    ['<x untrusted', '<x untrusted'],
    ['<', '<'],
    ['a < b', 'a < b'],
  ])('%j -> %j', (input, out) => {
    expect(neutralizeFences(input)).toBe(out);
  });

  it('drops trailing line ends and invisible characters inside the fence', () => {
    expect(fenceUntrusted('a-1', 'x\n\n\n', 'abcdef')).toBe('<untrusted-a-1-abcdef>\nx\n</untrusted-a-1-abcdef>');
    expect(fenceUntrusted('a', '\u200Bx', 'abcdef')).toBe('<untrusted-a-abcdef>\nx\n</untrusted-a-abcdef>');
  });

  it.each(['a-', '-a', 'a--b', 'A', 'a_b'])('refuses the label %j', (label) => {
    expect(() => fenceUntrusted(label, 'x', 'abcdef')).toThrow(
      `fence label ${JSON.stringify(label)} must be lowercase words joined by '-'`,
    );
  });

  it.each(['abcde', 'ABCDEF', 'abc-def', 'abcdef\n'])('refuses the nonce %j', (nonce) => {
    expect(() => fenceUntrusted('a', 'x', nonce)).toThrow('fence nonce must be at least 6 lowercase letters or digits');
  });

  it('accepts labels of words and digits joined by single dashes, and longer nonces', () => {
    expect(fenceUntrusted('a1-2b', 'x', 'abcdefg')).toBe('<untrusted-a1-2b-abcdefg>\nx\n</untrusted-a1-2b-abcdefg>');
  });
});

// The edges of each scanner: the row says which mistake in the scanner would change it.
describe('scanner edges', () => {
  it.each<[string, string]>([
    // Digits belong to a tag name (h0-h9), at both ends of the range.
    ['a<h1 hidden>x</h1>b', 'ab'],
    ['a<h0 hidden>x</h0>b<h9 hidden>y</h9>c', 'abc'],
    ['<h2 title=x>y</h2>', '<h2>y</h2>'],
    // A name followed by `_` has no word boundary there: not a tag as the regex reads it.
    ['a<p_x hidden>x</p_x>b', 'a<p_x hidden>x</p_x>b'],
    // `/` not right before `>` is no self-closing (and a div's would mean nothing anyway).
    ['a<div hidden/ >b', 'a'],
    // Only tags of the hidden element's own name count toward its nesting.
    ['a<div hidden>x<br>y</div>z', 'az'],
    // An element opened inside and never closed keeps the hidden one open: the rest goes (the safe side).
    ['a<div hidden>x<pre>y</div>z', 'a'],
    ['a<div hidden>x<pre>y</pre></div>z', 'az'],
    // At the very start of the text too.
    ['<p_x hidden>x</p_x>b', '<p_x hidden>x</p_x>b'],
    // An end tag with attributes is still the end tag (a browser ignores them): the div ends there.
    ['a<div hidden>x</div <b>y</b>z', 'ay</b>z'],
    // `<dest>` in angle brackets, and a dest that ends at `>`.
    ['![a](<u>)', '[image: u]'],
    ['![a](u>)', '[image: u]'],
    // A title needs space before it.
    ['![a](u>"t")', '![a](u>"t")'],
    // Only "", '' and () hold a title: text and then `)` is no title.
    ['![a](u x) )', '![a](u x) )'],
    // An image consumed whole: an image inside its title is not read again.
    ['![a](u "![b](v)") z', '[image: u] z'],
    ['![a][r![b][s]', '[image][s]'],
    // `![` with no closing bracket, after a `(` or `[` at the start of the text.
    ['(![a', '(![a'],
    ['(x)![a', '(x)![a'],
    ['[x]![a', '[x]![a'],
    ['![a]x)', '![a]x)'],
    // <img> only after a `<`; one tag consumed whole.
    ['ximg src=u>', 'ximg src=u>'],
    ['a<img alt=<img src=v>b', 'a[image: v]b'],
    // Link titles: only after `](`, also at the very start, also right after the previous link.
    ['see (u "t")', 'see (u "t")'],
    ['xy u "t")', 'xy u "t")'],
    ['](u "t")', '](u)'],
    ['[a](u "t")](v "w")', '[a](u)](v)'],
    ['[a ](u "t")', '[a ](u)'],
    ['[a](u \'](v "w")\')', '[a](u)'],
    ['[a](u )', '[a](u )'],
    // Tags as a browser reads them: a `/` not before `>` separates attributes; `_` belongs to no CommonMark tag name.
    ['<a/ title=x>', '<a>'],
    ['<a/x>y', '<a>y'],
    ['<a_>', '<a_>'],
    // A `<` with no name after it starts no tag, also at the very start.
    ['< b title=x>y', '< b title=x>y'],
    ['<a href=u/>', '<a href="u/">'],
    // Link definitions: the label opens with `[` and closes with `]:`, the URL starts with http(s).
    ['[a]: xhttps://x\nsee [a]', 'see [a]'],
    ['ab]: https://x\nsee [b]', 'ab]: https://x\nsee [b]'],
    ['[a[: https://x\nsee [a]', '[a[: https://x\nsee [a]'],
    ['[abc', '[abc'],
    ['[abc\ndef', '[abc\ndef'],
    // A definition counts as used only by a whole `[label]` on one line.
    ['[a]: https://x\nxa] y', 'xa] y'],
    ['[a]: https://x\nsee [a\nmore', 'see [a\nmore'],
  ])('%j -> %j', (input, out) => {
    expect(sanitizeUntrusted(input)).toBe(out);
  });

  it('splitLines keeps each line end, and adds no empty line after a final one', () => {
    expect(splitLines('\na\nb', createWorkMeter())).toEqual(['\n', 'a\n', 'b']);
    expect(splitLines('a\n', createWorkMeter())).toEqual(['a\n']);
    expect(splitLines('', createWorkMeter())).toEqual([]);
  });
});
