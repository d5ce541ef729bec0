// The Kiek table page: live updates (server-sent events), card picking, the countdown and
// answers posted as small forms. The server renders all HTML (autoescaped); this script only
// swaps the panels it sends and never builds markup from text.
(() => {
  "use strict";
  const app = document.getElementById("app");
  if (!app) return;
  const base = "/seat/" + encodeURIComponent(app.dataset.token);
  let key = app.dataset.key;
  let busy = false, again = false, ticker = null, stopped = false;

  const $ = (sel, root = document) => root.querySelector(sel);
  const $$ = (sel, root = document) => Array.from(root.querySelectorAll(sel));

  function overlay(text, button) {
    $("#overlay-text").textContent = text;
    const b = $("#overlay-button");
    b.hidden = !button;
    if (button) { b.textContent = button; b.onclick = () => location.reload(); }
    $("#overlay").hidden = false;
  }

  async function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    try {
      const response = await fetch(base + "/state", { cache: "no-store" });
      const state = await response.json();
      if (!response.ok) { overlay(state.error || "This seat is not available.", null); return; }
      $("#status").innerHTML = state.status;
      if (state.key !== key) {
        key = state.key;
        $("#decision").innerHTML = state.decision;
        wire();
      }
    } catch (err) {
      // the next event (or the reconnect) tries again
    } finally {
      busy = false;
      if (again) { again = false; refresh(); }
    }
  }

  // A refused answer leaves the form as it was (the chosen cards, the word) and usable again.
  function reopen(form) {
    $$("button", form).forEach((b) => { b.disabled = false; });
    if (form.kiekUpdate) form.kiekUpdate();
  }

  async function post(action, data, form) {
    const errorBox = $('#decision [data-role="error"]');
    try {
      const response = await fetch(base + "/" + action, {
        method: "POST",
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
        body: data.toString(),
      });
      const answer = await response.json().catch(() => ({}));
      if (!response.ok) {
        if (errorBox && answer.error) {
          $$('#decision p.error:not([data-role])').forEach((p) => { p.hidden = true; });  // older
          errorBox.textContent = answer.error;
          errorBox.hidden = false;
        }
        if (form) reopen(form);
      }
    } catch (err) {
      if (errorBox) { errorBox.textContent = "The table did not answer; try again."; errorBox.hidden = false; }
      if (form) reopen(form);
    }
    refresh();
  }

  function fmt(seconds) {
    const s = Math.max(0, Math.floor(seconds));
    return Math.floor(s / 60) + ":" + String(s % 60).padStart(2, "0");
  }

  function imagesShown(root) {
    const waits = $$("img", root).map((img) =>
      img.complete ? Promise.resolve() : new Promise((ok) => { img.onload = ok; img.onerror = ok; }));
    const cap = new Promise((ok) => setTimeout(ok, 4000));
    return Promise.race([Promise.all(waits), cap]);
  }

  function startClock(clock, seconds) {
    const end = performance.now() + seconds * 1000;
    clearInterval(ticker);
    const draw = () => {
      const left = (end - performance.now()) / 1000;
      clock.textContent = left > 0 ? fmt(left) : "0:00 — time is up";
      clock.classList.toggle("low", left <= 15);
      if (left <= 0) {
        clearInterval(ticker);
        $$("#decision button, #decision input").forEach((el) => { el.disabled = true; });
      }
    };
    draw();
    ticker = setInterval(draw, 250);
  }

  function wirePicker(form) {
    const need = Number(form.dataset.count);
    const order = [];
    const submit = $('button[type="submit"]', form);
    const count = $('[data-role="count"]', form);
    const word = $('input[name="word"]', form);
    const update = () => {
      const n = order.length;
      if (count) count.textContent = n === need ? "chosen" : "choose " + (need - n) + " more";
      if (submit) submit.disabled = n !== need || (word && !word.value.trim());
    };
    form.kiekUpdate = update;
    // cards the server shows chosen (the last answer, refused for its word) count as chosen
    $$('input[type="checkbox"]', form).forEach((box) => { if (box.checked) order.push(box); });
    $$('input[type="checkbox"]', form).forEach((box) => {
      box.addEventListener("change", () => {
        if (box.checked) {
          order.push(box);
          if (order.length > need) { const first = order.shift(); first.checked = false; }
        } else {
          order.splice(order.indexOf(box), 1);
        }
        update();
      });
    });
    if (word) word.addEventListener("input", update);
    update();
  }

  function wire() {
    clearInterval(ticker);
    const decision = $("#decision [data-request]");
    $$("#decision form[data-count]").forEach(wirePicker);
    $$("#decision form[data-action]").forEach((form) => {
      form.addEventListener("submit", (event) => {
        event.preventDefault();
        const data = new URLSearchParams(new FormData(form));
        if (event.submitter && event.submitter.name) data.append(event.submitter.name, event.submitter.value);
        $$("button", form).forEach((b) => { b.disabled = true; });
        post(form.dataset.action, data, form);
      });
    });
    const word = $('#decision input[name="word"]');
    if (word) word.focus();
    const clock = $("#decision .clock");
    if (!decision || !clock) return;
    if (clock.dataset.started === "true") {
      startClock(clock, Number(clock.dataset.left));
    } else {
      // The hourglass is turned when the cards are on screen: tell the table, then count.
      imagesShown(decision).then(() => {
        const data = new URLSearchParams({ request: decision.dataset.request });
        fetch(base + "/shown", {
          method: "POST",
          headers: { "Content-Type": "application/x-www-form-urlencoded" },
          body: data.toString(),
        }).catch(() => {});
        startClock(clock, Number(clock.dataset.limit));
      });
    }
  }

  const events = new EventSource(base + "/stream");
  events.addEventListener("version", () => refresh());
  events.addEventListener("replaced", () => {
    events.close();
    stopped = true;
    overlay("This seat is open in another tab or window; this one no longer updates.", "Play here");
  });
  events.addEventListener("closed", () => {
    events.close();
    stopped = true;
    refresh();
  });
  events.onerror = () => { if (!stopped && events.readyState === EventSource.CLOSED) refresh(); };
  wire();
})();
