// The admin console's languages: message catalogues in i18n/<locale>.json (same keys in each), the
// locale from the operator's choice (localStorage) or else the browser's languages, and the Intl
// formatters of that locale. Both catalogues are loaded at start, so switching needs no request.

export const LOCALES = ['en', 'zh-CN'];
const STORAGE_KEY = 'roost.admin.lang';

const catalogues = {};
let current = 'en';
let dateTime, timeOnly, number;

/** The locale the browser asks for: its first language that is Chinese (any zh*) or English; English otherwise. */
export function browserLocale(languages) {
  for (const l of languages || []) {
    const tag = String(l).toLowerCase();
    if (tag.startsWith('zh')) return 'zh-CN';
    if (tag.startsWith('en')) return 'en';
  }
  return 'en';
}

function storedLocale() {
  try {
    const l = localStorage.getItem(STORAGE_KEY);
    return LOCALES.includes(l) ? l : null;
  } catch (e) {
    return null; // storage disabled: follow the browser
  }
}

/** Loads every catalogue and picks the locale: the operator's remembered choice, else the browser's. */
export async function loadCatalogues() {
  await Promise.all(LOCALES.map(async l => {
    try {
      const response = await fetch(`i18n/${l}.json`, { headers: { 'Accept': 'application/json' } });
      catalogues[l] = response.ok ? await response.json() : {};
    } catch (e) {
      catalogues[l] = {};
    }
  }));
  use(storedLocale() || browserLocale(navigator.languages || [navigator.language]));
}

function use(locale) {
  current = locale;
  dateTime = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'medium' });
  timeOnly = new Intl.DateTimeFormat(locale, { timeStyle: 'short' });
  number = new Intl.NumberFormat(locale);
  document.documentElement.lang = locale;
}

export function locale() {
  return current;
}

/** Switches to a locale and remembers it; the caller re-renders. */
export function chooseLocale(l) {
  if (!LOCALES.includes(l)) return;
  try { localStorage.setItem(STORAGE_KEY, l); } catch (e) { /* not remembered, still applied */ }
  use(l);
}

/** The message as parts: text, and the params' values (strings, numbers or DOM nodes) where the message has {name}. */
export function parts(key, params) {
  const message = catalogues[current]?.[key] ?? catalogues.en?.[key] ?? key;
  return message.split(/(\{\w+\})/).filter(s => s !== '').map(s => {
    const name = /^\{(\w+)\}$/.exec(s)?.[1];
    return name !== undefined && params && name in params ? params[name] : s;
  });
}

/** The message of a key in the current locale, {name} replaced by params.name. */
export function t(key, params) {
  return parts(key, params).map(p => (p === null || p === undefined ? '' : String(p))).join('');
}

/**
 * Fills the page's static text: an element with data-i18n="key" gets the message as its content (a
 * child with data-i18n-slot="name" stays, in the place of {name}); data-i18n-label="key" sets aria-label.
 */
export function translatePage(root) {
  for (const el of root.querySelectorAll('[data-i18n]')) {
    const slots = Object.fromEntries([...el.querySelectorAll('[data-i18n-slot]')].map(s => [s.dataset.i18nSlot, s]));
    el.replaceChildren(...parts(el.dataset.i18n, slots));
  }
  for (const el of root.querySelectorAll('[data-i18n-label]')) el.setAttribute('aria-label', t(el.dataset.i18nLabel));
}

/** A date and time (ISO string, epoch millis or Date) in the locale; '' for none. */
export function formatDateTime(value) {
  return value === null || value === undefined || value === '' ? '' : dateTime.format(new Date(value));
}

/** A time of day in the locale (the chart's axis). */
export function formatTime(value) {
  return timeOnly.format(new Date(value));
}

/** A count in the locale; anything that is not a number is shown as it is. */
export function formatNumber(value) {
  return typeof value === 'number' && Number.isFinite(value) ? number.format(value) : value;
}
