// Live run page: a server-sent event says the run changed; fetch the page body again and swap it in.
// No reload: open <details> stay open, and a fork message being typed is not thrown away.
(function () {
  "use strict";
  const body = document.getElementById("run-body");
  if (!body || !window.EventSource) return;
  const runId = body.dataset.run;
  const state = document.getElementById("live-state");
  let version = body.dataset.version;
  let fetching = false;
  let wanted = null;

  function typing() {
    const active = document.activeElement;
    return active && body.contains(active) && active.tagName === "TEXTAREA" && active.value !== "";
  }

  function openDetails() {
    return Array.from(body.querySelectorAll("details[open]")).map(function (d) {
      const row = d.closest("[data-checkpoint]");
      return (row ? row.dataset.checkpoint : "") + "|" + (d.className || "changes");
    });
  }

  function reopen(keys) {
    body.querySelectorAll("details").forEach(function (d) {
      const row = d.closest("[data-checkpoint]");
      if (keys.indexOf((row ? row.dataset.checkpoint : "") + "|" + (d.className || "changes")) >= 0) d.open = true;
    });
  }

  async function refresh() {
    if (fetching || wanted === null || wanted === version) return;
    if (typing()) { setTimeout(refresh, 1000); return; }
    fetching = true;
    try {
      const query = body.dataset.query ? "?" + body.dataset.query : "";
      const response = await fetch("/runs/" + runId + "/body" + query, {cache: "no-store"});
      if (response.ok) {
        const keep = openDetails();
        body.innerHTML = await response.text();
        reopen(keep);
        const marker = document.getElementById("body-version");
        version = marker ? marker.dataset.version : wanted;
        body.dataset.version = version;
      }
    } finally {
      fetching = false;
    }
    if (wanted !== version) setTimeout(refresh, 200);
  }

  const events = new EventSource("/runs/" + runId + "/events");
  events.addEventListener("change", function (event) {
    wanted = JSON.parse(event.data);
    refresh();
  });
  events.onopen = function () { if (state) state.classList.remove("off"); };
  events.onerror = function () { if (state) state.classList.add("off"); };
})();
