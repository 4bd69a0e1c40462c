(function () {
  // An iteration's prompt, transcript, output and prompt diff are loaded
  // when it is shown, and a text a piece at a time (a button asks for
  // the next): a record of any size makes a small page, and the browser
  // holds only what is looked at.
  var piece = 256 * 1024;

  function size(n) {
    return n < 1024 * 1024 ? (n / 1024).toFixed(0) + " KiB" : (n / 1024 / 1024).toFixed(1) + " MiB";
  }

  // more appends the next piece of pre's file, asked for by Range; the
  // decoder keeps a character cut between two pieces whole.
  function more(pre) {
    var from = Number(pre.dataset.shown || 0);
    pre.dataset.state = "loading";
    fetch(pre.dataset.src, {cache: "no-store", headers: {Range: "bytes=" + from + "-" + (from + piece - 1)}})
      .then(function (r) {
        if (r.status === 416) { return {bytes: new ArrayBuffer(0), total: from}; }
        if (!r.ok) { return r.text().then(function (t) { throw new Error(t.trim()); }); }
        var range = /\/(\d+)$/.exec(r.headers.get("Content-Range") || "");
        return r.arrayBuffer().then(function (b) {
          return {bytes: b, total: range ? Number(range[1]) : from + b.byteLength};
        });
      })
      .then(function (got) {
        var shown = from + got.bytes.byteLength, done = shown >= got.total;
        pre.decoder = pre.decoder || new TextDecoder();
        pre.append(pre.decoder.decode(got.bytes, {stream: !done}));
        pre.dataset.shown = shown;
        pre.dataset.state = done ? "loaded" : "partial";
        button(pre, done, size(shown) + " of " + size(got.total) + " shown");
      })
      .catch(function (e) {
        pre.dataset.state = "failed";
        pre.append("(" + e.message + ")");
      });
  }

  // button offers the rest of a file shown in part.
  function button(pre, done, shown) {
    var b = pre.nextElementSibling;
    if (!b || !b.classList.contains("more")) {
      if (done) { return; }
      b = document.createElement("button");
      b.className = "more";
      b.addEventListener("click", function () { more(pre); });
      pre.after(b);
    }
    if (done) { b.remove(); } else { b.textContent = "Show more (" + shown + ")"; }
  }

  // diff shows the diff page's diff in pre.
  function diff(pre) {
    pre.dataset.state = "loading";
    fetch(pre.dataset.src, {cache: "no-store"})
      .then(function (r) { return r.text(); })
      .then(function (html) {
        var got = new DOMParser().parseFromString(html, "text/html").querySelector("pre.diff, p.error");
        if (got && got.matches("pre.diff")) {
          pre.replaceChildren.apply(pre, [].slice.call(document.importNode(got, true).childNodes));
        } else {
          pre.textContent = got ? got.textContent : "(the diff cannot be shown)";
        }
        pre.dataset.state = "loaded";
      })
      .catch(function (e) {
        pre.dataset.state = "failed";
        pre.textContent = "(" + e.message + ")";
      });
  }

  function show() {
    var section = document.getElementById(location.hash.slice(1));
    if (!section || !section.classList.contains("iteration")) { return; }
    section.querySelectorAll("pre[data-src]:not([data-state])").forEach(function (pre) {
      if (pre.classList.contains("diff")) { diff(pre); } else { more(pre); }
    });
  }

  addEventListener("hashchange", show);
  show();
})();
