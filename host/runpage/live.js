(function () {
  // Reload the page of a run going on when its record changes; a run
  // that has ended is served without this script.
  var seen = document.body.dataset.version;
  var url = location.pathname.replace(/\/$/, "") + "/version";
  setInterval(function () {
    fetch(url, {cache: "no-store"})
      .then(function (r) { return r.ok ? r.text() : seen; })
      .then(function (now) { if (now !== seen) { location.reload(); } })
      .catch(function () {});
  }, 2000);
})();
