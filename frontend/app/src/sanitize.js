/* The page's stand-in for sanitize-html (build.mjs aliases it): ipywidgets' manager uses
sanitize-html only to let some markup through in descriptions with `description_allow_html`,
which the app never sets. Here no markup goes through: the text is escaped, so a description is
shown as text. This keeps sanitize-html, htmlparser2 and postcss (a quarter of the widget code)
out of the page. */
const ENTITIES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export default function sanitize(text) {
  return String(text).replace(/[&<>"']/g, (c) => ENTITIES[c]);
}
