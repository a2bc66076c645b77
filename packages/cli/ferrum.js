#!/usr/bin/env node
// The `ferrum` command lives in a workspace package, not in the root package.json's `bin`: npx
// installs a root package into its own cache on every call to find a bin the root declares
// (about a second here), while a bin npm linked into node_modules/.bin runs at once.
import '../../dist/bin/ferrum.js';
