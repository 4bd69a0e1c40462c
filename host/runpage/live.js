(function () {
  // Reload a page that changes (a run going on, the fleet's) when its
  // version does: asked two seconds after the last answer, so that a
  // slow server is never asked twice at once.
  var seen = document.body.dataset.version;
  var url = location.pathname.replace(/\/$/, "") + "/version";
  function ask() {
    fetch(url, {cache: "no-store"})
      .then(function (r) { return r.ok ? r.text() : seen; })
      .then(function (now) { if (now !== seen) { location.reload(); } else { later(); } })
      .catch(later);
  }
  function later() { setTimeout(ask, 2000); }
  later();
})();
