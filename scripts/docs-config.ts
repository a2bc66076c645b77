// Writes docs/configuration.md from the settings lists the code reads (src/core/config/*.ts).
import fs from 'node:fs';
import { configurationReference } from '../src/core/config/reference.js';

fs.writeFileSync(new URL('../docs/configuration.md', import.meta.url), configurationReference());
console.log('docs/configuration.md written');
