"use strict";
// The lens's page: reads the API with the session cookie the launch URL
// gave this browser (sent by fetch to the same origin), refreshes without
// reloading, and reaches nothing but its own origin.
(function () {
  const $ = (sel) => document.querySelector(sel);

  async function api(path, body) {
    const init = { headers: {}, credentials: "same-origin", cache: "no-store" };
    if (body !== undefined) {
      init.method = "POST";
      init.headers["Content-Type"] = "application/json";
      init.body = JSON.stringify(body);
    }
    const res = await fetch(path, init);
    const data = await res.json();
    if (!res.ok) throw new Error(data.error ? data.error.code : String(res.status));
    return data;
  }

  function cell(tr, text, cls) {
    const td = document.createElement("td");
    td.textContent = text === undefined ? "" : String(text);
    if (cls) td.className = cls;
    tr.appendChild(td);
    return td;
  }

  function renderSession(rep) {
    const s = rep.session;
    const dl = $("#session");
    dl.replaceChildren();
    for (const [k, v] of [["Release", s.release], ["Run", s.run], ["Revision", s.revision || "none"],
      ["Plan", s.plan], ["Run status", s.status], ["Namespace", s.namespace],
      ["Archived target", s.server + " (context " + s.context + ")"],
      ["Cluster", rep.cluster.server + " (context " + rep.cluster.context + ")"], ["Ended", s.ended]]) {
      const dt = document.createElement("dt"); dt.textContent = k;
      const dd = document.createElement("dd"); dd.textContent = String(v);
      dl.append(dt, dd);
    }
    const warn = $("#cluster-warning");
    warn.hidden = rep.cluster.same;
    warn.textContent = rep.cluster.message || "";
  }

  const logTargets = new Set();
  function renderObjects(rep) {
    const tbody = $("#objects tbody");
    tbody.replaceChildren();
    for (const o of rep.objects) {
      const tr = document.createElement("tr");
      tr.dataset.object = o.object;
      tr.dataset.state = o.state;
      cell(tr, o.object, "object");
      cell(tr, o.state, "state state-" + o.state);
      cell(tr, o.readiness || "", "readiness");
      const edits = (o.edits || []).map((e) => "edited by " + e.manager + " at " + e.time + ": " + e.fields.join(", ") + (e.more ? " and " + e.more + " more" : ""));
      cell(tr, [o.message || ""].concat(edits).filter(Boolean).join("; "), "message");
      if (edits.length) tr.dataset.edited = "true";
      tbody.appendChild(tr);
      const k = o.ref.kind;
      if (o.state === "present" && (k === "Deployment" || k === "StatefulSet" || k === "Pod")) {
        addLogTarget(o.ref.namespace, k.toLowerCase() + "/" + o.ref.name);
      }
    }
    const c = rep.counts;
    $("#counts").textContent = ["present", "missing", "undeclared", "unknown"]
      .map((s) => (c[s] || 0) + " " + s).join(", ") + (rep.edited ? ", " + rep.edited + " edited since the run" : "");
  }

  function addLogTarget(ns, target) {
    const key = ns + " " + target;
    if (logTargets.has(key)) return;
    logTargets.add(key);
    const opt = document.createElement("option");
    opt.value = key;
    opt.textContent = target + " (" + ns + ")";
    $("#log-target").appendChild(opt);
  }

  function renderForwards(data) {
    $("#forwards-user").textContent = data.user ? "saved forwards of " + data.user : "no user given: no forwards";
    const tbody = $("#forwards tbody");
    tbody.replaceChildren();
    for (const f of data.forwards) {
      const tr = document.createElement("tr");
      tr.dataset.forward = f.name;
      tr.dataset.running = String(f.running);
      cell(tr, f.name);
      cell(tr, f.namespace + "/" + f.target + ":" + f.remotePort);
      cell(tr, f.running ? f.local : f.address + ":" + f.localPort);
      cell(tr, f.running ? "running" : (f.error ? "stopped: " + f.error : "stopped"), "forward-state");
      const td = cell(tr, "");
      const b = document.createElement("button");
      b.type = "button";
      b.className = f.running ? "stop" : "start";
      b.textContent = f.running ? "Stop" : "Start";
      b.addEventListener("click", () => toggle(f.name, f.running));
      td.appendChild(b);
      tbody.appendChild(tr);
    }
  }

  async function toggle(name, running) {
    try {
      await api(running ? "/v1/forwards/stop" : "/v1/forwards/start", { name: name });
    } catch (e) {
      $("#refreshed").textContent = "forward " + name + ": " + e.message;
    }
    refreshForwards();
  }

  async function refreshForwards() {
    try { renderForwards(await api("/v1/forwards")); } catch (e) { /* shown by refresh */ }
  }

  async function refresh() {
    try {
      const rep = await api("/v1/status");
      renderSession(rep);
      renderObjects(rep);
      await refreshForwards();
      $("#refreshed").textContent = "refreshed " + new Date().toLocaleTimeString();
    } catch (e) {
      $("#refreshed").textContent = "refresh failed: " + e.message;
    }
  }

  $("#log-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    const [ns, target] = $("#log-target").value.split(" ");
    const q = new URLSearchParams({ namespace: ns, target: target, tail: $("#log-lines-count").value });
    try {
      const t = await api("/v1/logs?" + q.toString());
      $("#log-source").textContent = "pod " + t.pod + ", container " + t.container + (t.truncated ? " (older lines dropped)" : "");
      $("#log-lines").textContent = t.lines.join("\n");
    } catch (e) {
      $("#log-source").textContent = "logs: " + e.message;
      $("#log-lines").textContent = "";
    }
  });

  refresh();
  setInterval(refresh, 3000);
})();
