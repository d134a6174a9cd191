/** The one stylesheet: system fonts, readable measure, AA contrast, visible focus. */
export const STYLESHEET = `
:root { color-scheme: light; --fg: #1a1a1a; --muted: #4a4a4a; --accent: #0b5394; --line: #d0d7de; --bg-soft: #f5f7fa; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: #fff; }
a { color: var(--accent); }
a:focus, button:focus, input:focus, select:focus { outline: 3px solid #f0a500; outline-offset: 2px; }
.skip { position: absolute; left: -999px; top: 0; background: #fff; padding: .5rem; }
.skip:focus { left: .5rem; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
header.site { display: flex; flex-wrap: wrap; gap: 1rem; align-items: center; justify-content: space-between; padding: .75rem 1.5rem; background: #0b3d6b; }
header.site .brand { color: #fff; font-weight: 700; font-size: 1.2rem; text-decoration: none; }
header.site form { display: flex; gap: .5rem; flex: 1; max-width: 36rem; }
input[type=search], input[type=text], select { flex: 1; padding: .45rem .6rem; border: 1px solid #8a96a3; border-radius: 4px; font: inherit; }
button { padding: .45rem .9rem; border: 0; border-radius: 4px; background: #f0a500; color: #1a1a1a; font: inherit; font-weight: 600; cursor: pointer; }
main { max-width: 72rem; margin: 0 auto; padding: 1.5rem; overflow-wrap: anywhere; }
footer.site { border-top: 1px solid var(--line); color: var(--muted); padding: 1rem 1.5rem; font-size: .9rem; }
h1 { font-size: 1.7rem; line-height: 1.25; margin: .25rem 0 .75rem; }
h2 { font-size: 1.2rem; margin: 1.5rem 0 .5rem; border-bottom: 1px solid var(--line); padding-bottom: .25rem; }
.meta { color: var(--muted); }
.badges span { display: inline-block; margin: 0 .4rem .4rem 0; padding: .1rem .55rem; border-radius: 999px; background: var(--bg-soft); border: 1px solid var(--line); font-size: .85rem; }
.notice { padding: .75rem 1rem; border-left: 4px solid #f0a500; background: #fff8e6; margin: 1rem 0; }
.layout { display: grid; grid-template-columns: minmax(0, 1fr) 18rem; gap: 2rem; }
@media (max-width: 800px) { .layout { grid-template-columns: 1fr; } }
figure.map { margin: 0 0 1rem; }
figure.map svg { display: block; border: 1px solid var(--line); border-radius: 6px; }
aside section { background: var(--bg-soft); border: 1px solid var(--line); border-radius: 6px; padding: .75rem 1rem; margin-bottom: 1rem; }
aside h2 { margin-top: 0; font-size: 1rem; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: .4rem .5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
/* main's overflow-wrap lets a table squeeze its labels to one letter wide beside a long value. */
th { overflow-wrap: normal; }
/* A file's size stays on one line beside a long file name ("40 KiB", not "40" over "KiB"). */
td.size { white-space: nowrap; }
code { font-size: .85rem; word-break: break-all; }
ul.plain { list-style: none; padding: 0; margin: 0; }
ul.plain li { margin: .25rem 0; }
ol.hits { list-style: none; padding: 0; }
ol.hits li { padding: .75rem 0; border-bottom: 1px solid var(--line); }
ol.hits h2 { border: 0; margin: 0 0 .25rem; font-size: 1.1rem; }
nav.paging { display: flex; gap: 1rem; margin: 1rem 0; }
.facet a[aria-current=true] { font-weight: 700; }
.area-picker { overflow-x: auto; margin-bottom: 1rem; }
.area-picker input[type=image] { display: block; max-width: none; border: 1px solid var(--line); border-radius: 6px; cursor: crosshair; }
.citation .csl-entry { overflow-wrap: anywhere; margin-bottom: .5rem; }
/* A numbered style's "1." means nothing for a single entry. */
.citation .csl-left-margin { display: none; }
.citation .csl-right-inline { display: inline; }
`;
