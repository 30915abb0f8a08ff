// The HTML report's interaction: sortable tables, game filters, and the replay of a game.
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

// ---- the games list: filter by bot, result and termination; pairs stay together ----
const filters = document.getElementById("filters");

// the bots of a listed game in seat order: data-seats (a game of more seats) or first and second
function seated(row) {
  return row.dataset.seats ? JSON.parse(row.dataset.seats) : [row.dataset.first, row.dataset.second];
}

function points(row, bot) {
  if (row.dataset.seats) { // each seat's points in turn: "0-1-0", "1/2-0-1/2"
    const [share, of = 1] = row.dataset.result.split("-")[seated(row).indexOf(bot)].split("/").map(Number);
    return share / of;
  }
  const first = { "1-0": 1, "0-1": 0 }[row.dataset.result] ?? 0.5;
  return row.dataset.first === bot ? first : 1 - first;
}

function applyFilters() {
  const bot = filters.bot.value, result = filters.result.value, termination = filters.termination.value;
  let shown = 0, total = 0;
  for (const group of document.querySelectorAll("#games-table tbody.pair")) {
    let any = false;
    for (const row of group.rows) {
      total += 1;
      const d = row.dataset;
      let ok = !bot || seated(row).includes(bot);
      if (ok && termination) ok = d.termination === termination;
      if (ok && (result === "win" || result === "loss")) ok = !!bot && points(row, bot) === (result === "win" ? 1 : 0);
      else if (ok && result) ok = d.result === result;
      row.hidden = !ok;
      any = any || ok;
      shown += ok ? 1 : 0;
    }
    group.hidden = !any;
  }
  const needsBot = (result === "win" || result === "loss") && !bot;
  document.getElementById("shown").textContent =
    needsBot ? "choose a bot: whose win or loss?" : `${shown} of ${total} games shown`;
}

filters.addEventListener("change", applyFilters);
applyFilters();

// ---- replay: boards are gzipped per game and unpacked when the game is opened ----
const dialog = document.getElementById("replay");
const board = document.getElementById("board");
const plyInput = document.getElementById("ply");
const slider = document.getElementById("ply-slider");
const movesBody = document.querySelector("#moves-table tbody");
const viewBox = document.getElementById("replay-view");
const viewSelect = document.getElementById("view-seat");
let packed = null; // game id -> base64 of gzipped JSON, parsed on first use
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

function cell(row, text, numeric) {
  const td = row.insertCell();
  td.textContent = text;
  if (numeric) td.className = "num";
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
  packed = packed || JSON.parse(document.getElementById("replay-data").textContent);
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
