// Runs before the page's first paint (a plain script in <head>, written into every page by the
// build and allowed by its sha256 in the CSP, scripts/csp-bootstrap.mjs): the compact embed view
// (?embed=1) hides the page's static header, which the HTML paints at once, before the app's
// WebAssembly has loaded; and any link with a query hides the first view that each page paints
// before the app takes over (src/first_view/): it is not that link's view.
if (/[?&]embed=(1|true|on)(&|$)/.test(location.search)) document.documentElement.classList.add('embed-view');
if (location.search) document.documentElement.classList.add('with-query');
