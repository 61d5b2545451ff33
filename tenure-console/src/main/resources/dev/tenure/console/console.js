// Tenure console: live refresh. Every <body data-refresh> seconds, fetch this page again and swap its #live part in
// place (never the forms, so typing is never lost). No framework, no build step.
(function () {
  var seconds = parseInt(document.body.getAttribute('data-refresh') || '0', 10);
  if (!seconds) { return; }
  var refreshes = 0;
  setInterval(function () {
    if (document.hidden) { return; }
    fetch(location.href, { credentials: 'same-origin', cache: 'no-store' })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) {
        if (!html) { return; }
        var fresh = new DOMParser().parseFromString(html, 'text/html').getElementById('live');
        var old = document.getElementById('live');
        if (fresh && old) {
          old.replaceWith(fresh);
          document.body.setAttribute('data-refreshes', String(++refreshes));
        }
      })
      .catch(function () { /* the next tick tries again */ });
  }, seconds * 1000);
})();
