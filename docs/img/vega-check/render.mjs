// Compiles each Vega-Lite spec given on the command line (as written by
// `counterlab boundary --vega` and `counterlab verify --vega`) with vega-lite, renders it
// with vega's headless SVG renderer next to the spec (NAME.vl.json -> NAME.vega.svg), and
// exits 1 if the compiler or the renderer logged a warning or an error.
import fs from 'node:fs';
import * as vega from 'vega';
import * as vl from 'vega-lite';

let problems = 0;
for (const path of process.argv.slice(2)) {
  const messages = [];
  const logger = {
    level() { return this; },
    info() { return this; },
    debug() { return this; },
    warn(...a) { messages.push(`warning: ${a.join(' ')}`); return this; },
    error(...a) { messages.push(`error: ${a.join(' ')}`); return this; },
  };
  const spec = JSON.parse(fs.readFileSync(path, 'utf8'));
  const compiled = vl.compile(spec, { logger }).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: 'none', logger });
  const svg = await view.toSVG();
  const out = path.replace(/\.vl\.json$|\.json$/, '') + '.vega.svg';
  fs.writeFileSync(out, svg);
  console.log(`${path}: rendered ${out} (${svg.length} bytes), ${messages.length} warning(s)`);
  for (const m of messages) console.log(`  ${m}`);
  problems += messages.length;
}
process.exit(problems === 0 ? 0 : 1);
