// The HTML report's interaction: sortable tables, the games list (paged, sorted, filtered), and the replay of a game.
// Plain JavaScript, no library and no build step; the page works without a network.
"use strict";

// ---- sortable tables: a click on a column's name sorts by it, a second click reverses ----
function sortBy(table, column) {
  const head = table.tHead.rows[0].cells[column];
  const descending = head.getAttribute("aria-sort") !== "descending";
  for (const th of table.tHead.rows[0].cells) th.removeAttribute("aria-sort");
  head.setAttribute("aria-sort", descending ? "descending" : "ascending");
  const body = table.tBodies[0];
  const key = (row) => {
    const value = row.cells[column].dataset.value;
    const number = Number(value);
    return value === undefined ? null : value !== "" && !Number.isNaN(number) ? number : value;
  };
  const rows = Array.from(body.rows);
  rows.sort((a, b) => {
    const x = key(a), y = key(b);
    if (x === null || y === null) return (x === null) - (y === null); // missing values last
    const order = typeof x === "number" && typeof y === "number" ? x - y : String(x).localeCompare(String(y));
    return descending ? -order : order;
  });
  body.append(...rows);
}

for (const table of document.querySelectorAll("table.sortable")) {
  Array.from(table.tHead.rows[0].cells).forEach((th, column) => {
    th.querySelector("button").addEventListener("click", () => sortBy(table, column));
  });
}

// ---- the games list: drawn from columns of numbers (results.html_parts.listing), a page at a time ----
const listed = JSON.parse(document.getElementById("games-data").textContent);
const packed = JSON.parse(document.getElementById("replay-data").textContent); // game id -> base64 of gzipped JSON
const text = listed.text, players = listed.players, count = listed.id.length;
const filters = document.getElementById("filters");
const gamesTable = document.getElementById("games-table");
const pager = document.getElementById("pages");
const PAGE = 500; // rows a page at least, in whole groups
let sorted = null; // {key, descending}: the games one by one in that order; null: in their groups
let order = null; // the games' indices in the sorted order, once computed
let pages = [[]]; // each page's groups, each group a list of game indices
let page = 0;

// the bots of game k in seat order
function bots(k) {
  const out = [];
  for (let s = 0; s < players; s++) {
    const c = listed.seats[k * players + s];
    if (c >= 0) out.push(text[c]);
  }
  return out;
}

// the points of a bot in game k: each seat's points in turn ("0-1-0", "1/2-0-1/2"), or the first's ("1-0")
function points(k, bot) {
  const result = text[listed.result[k]], seat = bots(k).indexOf(bot);
  if (players > 2) {
    const [share, of = 1] = result.split("-")[seat].split("/").map(Number);
    return share / of;
  }
  const first = { "1-0": 1, "0-1": 0 }[result] ?? 0.5;
  return seat === 0 ? first : 1 - first;
}

// whether game k passes the filters
function filter() {
  const bot = filters.bot.value, result = filters.result.value, termination = filters.termination.value;
  const replay = filters.elements.replay ? filters.elements.replay.value : "";
  return (k) => {
    if (bot && !bots(k).includes(bot)) return false;
    if (termination && text[listed.termination[k]] !== termination) return false;
    if (result === "win" || result === "loss") {
      if (!bot || points(k, bot) !== (result === "win" ? 1 : 0)) return false;
    } else if (result && text[listed.result[k]] !== result) return false;
    return !replay || (listed.id[k] in packed) === (replay === "yes");
  };
}

// the games' indices sorted by a column: texts in the order of their words, ties in listing order
function sortedOrder() {
  const collator = new Intl.Collator("en", { numeric: true });
  const ranks = text.map((_, i) => i).sort((a, b) => collator.compare(text[a], text[b]));
  const rank = new Int32Array(text.length);
  ranks.forEach((i, r) => { rank[i] = r; });
  const at = (c) => (c >= 0 ? rank[c] : -1);
  const column = {
    id: (k) => listed.id[k], plies: (k) => listed.plies[k], first: (k) => at(listed.seats[k * players]),
    second: (k) => at(listed.seats[k * players + 1]), result: (k) => at(listed.result[k]),
    termination: (k) => at(listed.termination[k]), opening: (k) => at(listed.opening[k]),
  }[sorted.key];
  const sign = sorted.descending ? -1 : 1;
  const index = Array.from({ length: count }, (_, k) => k);
  if (column) {
    const values = Float64Array.from(index, column);
    return index.sort((a, b) => sign * (values[a] - values[b]) || a - b);
  }
  const seats = (a, b) => { // every seat in turn
    for (let s = 0; s < players; s++) {
      const d = at(listed.seats[a * players + s]) - at(listed.seats[b * players + s]);
      if (d) return d;
    }
    return 0;
  };
  return index.sort((a, b) => sign * seats(a, b) || a - b);
}

// the games the filters pass, in groups (or one by one, sorted), cut into pages
function arrange() {
  const ok = filter();
  const units = [];
  if (sorted === null) {
    listed.groups.forEach((start, g) => {
      const end = g + 1 < listed.groups.length ? listed.groups[g + 1] : count;
      const unit = [];
      for (let k = start; k < end; k++) if (ok(k)) unit.push(k);
      if (unit.length) units.push(unit);
    });
  } else {
    order = order || sortedOrder();
    for (const k of order) if (ok(k)) units.push([k]);
  }
  pages = [[]];
  let rows = 0, shown = 0;
  for (const unit of units) {
    if (rows >= PAGE) {
      pages.push([]);
      rows = 0;
    }
    pages[pages.length - 1].push(unit);
    rows += unit.length;
    shown += unit.length;
  }
  page = Math.min(page, pages.length - 1);
  const result = filters.result.value;
  const needsBot = (result === "win" || result === "loss") && !filters.bot.value;
  document.getElementById("shown").textContent =
    needsBot ? "choose a bot: whose win or loss?" : `${shown} of ${count} games shown`;
}

function listGame(body, k) {
  const row = body.insertRow(), id = listed.id[k], seats = bots(k), loser = listed.loser[k];
  row.dataset.id = id;
  row.title = text[listed.message[k]];
  cell(row, String(id), true);
  if (players > 2) cell(row, seats.join(", ")).className = "seats";
  else seats.forEach((bot) => cell(row, bot));
  cell(row, text[listed.result[k]]);
  cell(row, text[listed.termination[k]] + (loser >= 0 && seats[loser] !== undefined ? ` (${seats[loser]})` : ""));
  cell(row, String(listed.plies[k]), true);
  cell(row, text[listed.opening[k]]).className = "opening";
  const last = row.insertCell();
  if (id in packed) {
    const button = document.createElement("button");
    button.type = "button";
    button.className = "replay";
    button.dataset.id = id;
    button.textContent = "Replay";
    last.append(button);
  }
}

function draw() {
  for (const body of Array.from(gamesTable.tBodies)) body.remove();
  let body = null;
  for (const unit of pages[page]) {
    if (sorted === null || body === null) body = gamesTable.createTBody();
    if (sorted === null) body.className = "pair";
    for (const k of unit) listGame(body, k);
  }
  pager.hidden = pages.length < 2;
  document.getElementById("page-text").textContent = `page ${page + 1} of ${pages.length}`;
  for (const button of pager.querySelectorAll("button")) {
    const step = button.dataset.page;
    button.disabled = (step === "first" || step === "back") ? page === 0 : page === pages.length - 1;
  }
}

function relist() {
  arrange();
  draw();
}

filters.addEventListener("change", () => {
  page = 0;
  relist();
});
for (const th of gamesTable.tHead.rows[0].cells) {
  const button = th.querySelector("button");
  if (!button) continue;
  button.addEventListener("click", () => { // descending, ascending, then the listing order again
    const state = th.getAttribute("aria-sort");
    for (const head of gamesTable.tHead.rows[0].cells) head.removeAttribute("aria-sort");
    sorted = state === "ascending" ? null : { key: th.dataset.key, descending: state !== "descending" };
    if (sorted) th.setAttribute("aria-sort", sorted.descending ? "descending" : "ascending");
    order = null;
    page = 0;
    relist();
  });
}
pager.addEventListener("click", (event) => {
  const step = event.target.closest("button")?.dataset.page;
  if (!step) return;
  page = Math.max(0, Math.min(pages.length - 1, { first: 0, back: page - 1, forward: page + 1, last: Infinity }[step]));
  draw();
});
document.getElementById("find-game").addEventListener("change", (event) => {
  if (event.target.value === "") return;
  const id = Number(event.target.value), k = listed.id.indexOf(id);
  const at = k < 0 ? -1 : pages.findIndex((units) => units.some((unit) => unit.includes(k)));
  const said = document.getElementById("find-text");
  said.textContent = k < 0 ? `there is no game ${id}` : at < 0 ? `the filters hide game ${id}` : "";
  if (at < 0) return;
  page = at;
  draw();
  const row = gamesTable.querySelector(`tr[data-id="${id}"]`);
  row.classList.add("found");
  row.scrollIntoView({ block: "center" });
});
relist();

// ---- replay: boards are gzipped per game (in "packed") and unpacked when the game is opened ----
const dialog = document.getElementById("replay");
const board = document.getElementById("board");
const plyInput = document.getElementById("ply");
const slider = document.getElementById("ply-slider");
const movesBody = document.querySelector("#moves-table tbody");
const viewBox = document.getElementById("replay-view");
const viewSelect = document.getElementById("view-seat");
let current = null; // the open game's data
let ply = 0;
let viewer = null; // the seat whose view is shown (a game with hidden information), or null: the whole game

async function unpack(text) {
  const bytes = Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  return JSON.parse(await new Response(stream).text());
}

function number(value, digits) {
  if (value === null || value === undefined) return "–";
  return digits === undefined ? value.toLocaleString("en") : value.toFixed(digits);
}

function cell(row, content, numeric) {
  const td = row.insertCell();
  td.textContent = content;
  if (numeric) td.className = "num";
  return td;
}

// the bot in a seat of a replayed game: its seats (a game of more seats), or first and second
function seatBot(data, player) {
  return data.seats ? data.seats[player] : player === 0 ? data.first : data.second;
}

// who made a ply: the opening's (player null), chance's (-1: an outcome the referee drew), or a player's
function mover(m, data) {
  if (m.player === null) return "opening";
  if (m.player < 0) return "chance";
  return `${data.names[m.player]}: ${seatBot(data, m.player)}`;
}

// a ply's move as the viewer saw it: the seat's own in full, any other as every seat saw it
function moveText(data, k) {
  const m = data.moves[k];
  return viewer === null || m.player === viewer ? m.move : data.public[k] ?? "?";
}

function listMoves(data) {
  movesBody.replaceChildren();
  data.moves.forEach((m, k) => {
    const row = movesBody.insertRow();
    row.dataset.ply = k + 1; // the board after this move
    if (m.player === null) row.className = "opening";
    else if (m.player < 0) row.className = "chance";
    const own = viewer === null || m.player === viewer; // another seat's search says what it held
    cell(row, m.ply, true);
    cell(row, mover(m, data));
    cell(row, moveText(data, k));
    cell(row, own ? number(m.nodes) : "–", true);
    cell(row, own ? number(m.depth) : "–", true);
    cell(row, !own || m.score === null || m.score === undefined ? "–" : number(m.score, 3), true);
    cell(row, m.seconds === null || m.seconds === undefined ? "–" : number(m.seconds, 3), true);
    row.addEventListener("click", () => show(k + 1));
  });
}

// a joint move's plies (data.moves[k].joint: its first and last ply) are one turn: shown after all of it
function settle(target) {
  const m = current.moves[target - 1];
  return m && m.joint ? m.joint[1] : target;
}

function turnStart(at) {
  const m = current.moves[at - 1];
  return m && m.joint ? m.joint[0] : at;
}

function played(k) {
  const move = current.moves[k];
  if (move.player !== null && move.player < 0) return `chance gave ${moveText(current, k)}`;
  const who = move.player !== null ? `${current.names[move.player]} (${seatBot(current, move.player)})` : "opening";
  return `${who} played ${moveText(current, k)}`;
}

function show(target) {
  const last = current.boards.length - 1;
  ply = Math.min(last, settle(Math.max(0, Math.min(last, target))));
  const parts = viewer === null ? current.boards[ply] : current.seen[viewer][ply];
  const text = parts.map((i) => current.parts[i]).join("");
  if (current.kind === "svg" && viewer === null) {
    board.innerHTML = text; // drawn by the game's own svg hook
  } else {
    const pre = document.createElement("pre");
    pre.textContent = text;
    board.replaceChildren(pre);
  }
  plyInput.value = slider.value = ply;
  const turn = []; // every ply of the turn shown: one, or the parts of a joint move
  for (let k = Math.max(turnStart(ply), 1) - 1; k < ply; k++) turn.push(played(k));
  const said = turn.join(" and ");
  document.getElementById("ply-text").textContent = ply === 0 ? `ply 0 of ${last}: the start` : `ply ${ply} of ${last}: ${said}`;
  document.getElementById("replay-result").textContent =
    ply === current.moves.length ? `result ${current.result} (${current.termination}): ${current.message}` : "";
  const first = turnStart(ply);
  for (const row of movesBody.rows) {
    const at = Number(row.dataset.ply);
    row.classList.toggle("current", at >= first && at <= ply);
  }
  const row = movesBody.rows[ply - 1];
  if (row) row.scrollIntoView({ block: "nearest" });
}

async function openReplay(id) {
  current = await unpack(packed[id]);
  document.getElementById("replay-title").textContent = `Game ${current.id}`;
  document.getElementById("replay-players").textContent =
    current.names.map((name, seat) => `${name}: ${seatBot(current, seat)}`).join(", ") +
    (current.opening ? `; the first ${current.opening} plies are the random opening` : "");
  const error = document.getElementById("replay-error");
  error.hidden = !current.error;
  error.textContent = current.error || "";
  plyInput.max = slider.max = current.boards.length - 1;
  viewer = null;
  viewSelect.replaceChildren(new Option("the whole game", ""));
  if (current.seen) {
    current.names.forEach((name, seat) =>
      viewSelect.append(new Option(`what ${name} (${seatBot(current, seat)}) saw`, String(seat))));
  }
  viewBox.hidden = !current.seen;
  listMoves(current);
  if (!dialog.open) dialog.showModal();
  show(0);
}

viewSelect.addEventListener("change", () => {
  viewer = viewSelect.value === "" ? null : Number(viewSelect.value);
  listMoves(current);
  show(ply);
});

document.getElementById("games-table").addEventListener("click", (event) => {
  const button = event.target.closest("button.replay");
  if (button) openReplay(button.dataset.id);
});
dialog.querySelector(".close").addEventListener("click", () => dialog.close());
dialog.querySelector(".controls").addEventListener("click", (event) => {
  const step = event.target.closest("button")?.dataset.step;
  const moves = { first: -Infinity, back: turnStart(ply) - 1, forward: ply + 1, last: Infinity };
  if (step) show(moves[step]);
});
plyInput.addEventListener("change", () => show(Number(plyInput.value)));
slider.addEventListener("input", () => show(Number(slider.value)));
dialog.addEventListener("keydown", (event) => {
  if (event.target === plyInput) return;
  const keys = { ArrowLeft: turnStart(ply) - 1, ArrowRight: ply + 1, Home: -Infinity, End: Infinity };
  if (event.key in keys) {
    event.preventDefault();
    show(keys[event.key]);
  }
});
