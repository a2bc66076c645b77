// @ts-check
// A few helpers to build the page from plain DOM nodes (no framework, no build step).

/** @typedef {Node | string | number | null | undefined | false | any[]} Child */

/**
 * h('button', { onclick, class: 'x' }, 'Label', child…)
 * @param {string} tag @param {Record<string, any>} [attrs] @param {Child[]} children
 * @returns {HTMLElement & Record<string, any>}
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function')
      el.addEventListener(name.slice(2), reportingFailures(value));
    else if (name === 'class') el.className = value;
    else if (name === 'dataset') Object.assign(el.dataset, value);
    else if (value === true) el.setAttribute(name, '');
    else el.setAttribute(name, String(value));
  }
  append(el, children);
  return el;
}

/** An event handler whose failure (a refused API call, say) is shown to the person, not lost in the console. */
function reportingFailures(/** @type {(event: Event) => unknown} */ handler) {
  return (/** @type {Event} */ event) => {
    const result = /** @type {any} */ (handler(event));
    if (result && typeof result.catch === 'function')
      result.catch((error) => toast(`Failed: ${error.message || error}`, { error: true }));
    return result;
  };
}

/** @param {HTMLElement} el @param {Child[]} children */
function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/**
 * A table with a header row; `rows` are arrays of cells (strings or nodes). It scrolls inside its
 * own box, so a wide table never widens the page on a phone.
 * @param {string[]} headers @param {Child[][]} rows @param {{ empty?: string, caption?: string }} [options]
 */
export function table(headers, rows, { empty = 'Nothing here yet.', caption = '' } = {}) {
  if (rows.length === 0) return h('p', { class: 'empty' }, empty);
  return h(
    'div',
    { class: 'table-scroll' },
    h(
      'table',
      {},
      caption ? h('caption', {}, caption) : null,
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          headers.map((title) => h('th', { scope: 'col' }, title)),
        ),
      ),
      h(
        'tbody',
        {},
        rows.map((cells) =>
          h(
            'tr',
            {},
            cells.map((cell) => h('td', {}, cell ?? '')),
          ),
        ),
      ),
    ),
  );
}

/** A labelled input; returns [labelNode, inputNode]. @param {string} label @param {Record<string, any>} [attrs] */
export function field(label, attrs = {}) {
  const id =
    attrs.id || `f-${label.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${Math.random().toString(36).slice(2, 7)}`;
  const input = attrs.multiline
    ? h('textarea', { ...attrs, id, multiline: undefined })
    : h('input', { type: 'text', ...attrs, id });
  return [h('label', { for: id }, label), input];
}

/**
 * A form whose submit runs `onSubmit(formValues)`; errors show inside the form.
 * @param {Child[]} fields @param {string} submitLabel
 * @param {(values: Record<string, string>, form: HTMLFormElement) => unknown} onSubmit
 * @param {Record<string, any>} [attrs]
 */
export function form(fields, submitLabel, onSubmit, attrs = {}) {
  const error = h('p', { class: 'error', role: 'alert' });
  const button = h('button', { type: 'submit' }, submitLabel);
  const el = /** @type {HTMLFormElement} */ (h('form', attrs, fields, button, error));
  el.addEventListener('submit', async (event) => {
    event.preventDefault();
    error.textContent = '';
    button.disabled = true;
    try {
      const values = /** @type {Record<string, string>} */ (Object.fromEntries(new FormData(el).entries()));
      await onSubmit(values, el);
    } catch (e) {
      error.textContent = e.message;
    } finally {
      button.disabled = false;
    }
  });
  return el;
}

/**
 * A button that runs `run`, after the person confirms `question` when one is given.
 * @param {string} label @param {string} question @param {() => Promise<unknown>} run
 * @param {{ danger?: boolean, ariaLabel?: string }} [options]
 */
export function confirmedButton(label, question, run, { danger = false, ariaLabel } = {}) {
  const onclick = async () => {
    if (question && !confirm(question)) return;
    await run();
  };
  return h('button', { class: danger ? 'danger' : undefined, 'aria-label': ariaLabel, onclick }, label);
}

/** @type {ReturnType<typeof setTimeout> | undefined} */
let toastTimer;

/** Shows a short message in the status line. @param {string} message */
export function toast(message, { error = false } = {}) {
  const el = document.getElementById('toast');
  if (!el) return;
  el.textContent = message;
  el.classList.toggle('failed', error);
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => (el.textContent = ''), 4000);
}

/** A local date and time, '' for none. @param {string | undefined} value */
export function time(value) {
  if (!value) return '';
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return String(value);
  return date.getUTCFullYear() < 1971 ? '' : date.toLocaleString(); // the zero timestamp means unset
}

/** @param {any} error */
export function errorBox(error) {
  return h('p', { class: 'error', role: 'alert' }, error.message || String(error));
}
