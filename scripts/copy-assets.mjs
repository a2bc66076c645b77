// tsc compiles TypeScript only: copy the Lua scripts and other runtime assets beside the output.
import fs from 'node:fs';
import path from 'node:path';

const roots = ['src', 'api', 'controller', 'runner'];
const assetPattern = /\.(lua)$/;

function copyTree(dir) {
  if (!fs.existsSync(dir)) return;
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const from = path.join(dir, entry.name);
    if (entry.isDirectory()) copyTree(from);
    else if (assetPattern.test(entry.name)) {
      const to = path.join('dist', from);
      fs.mkdirSync(path.dirname(to), { recursive: true });
      fs.copyFileSync(from, to);
    }
  }
}

for (const root of roots) copyTree(root);
fs.cpSync('web', path.join('dist', 'web'), { recursive: true });
