// Random rounds of uno-engine (npm), prefer-play, for benchmarks/playout_bench.py.
//
// Reads one command per line on stdin: "N" plays N 2-player rounds (a new Game
// each: its deal counts), "deal N" only deals N games; answers one JSON line on
// stdout: {"rounds": N, "cpu_s": ..., "decisions": ...}, CPU time by
// process.cpuUsage().
//
// prefer-play, as ../shared/peers: the legal actions are the playable cards in
// the hand (each distinct card once, a wild once per colour), "draw" before the
// player has drawn, "pass" after; uniform over the plays when there are any,
// else draw (or pass, once drawn). Nobody yells UNO (uno-engine asks no one to).
// Math.random is uno-engine's own shuffle source and ours.
'use strict';
const path = require('path');
const readline = require('readline');
const { Color, Game, Value } = require(path.join(process.env.UNO_ENGINE_DIR, 'node_modules', 'uno-engine'));

const COLOURS = [Color.RED, Color.BLUE, Color.GREEN, Color.YELLOW];
const WILD = new Set([Value.WILD, Value.WILD_DRAW_FOUR]);

function playRound(players) {
  const game = new Game(players);
  let over = false;
  game.on('end', () => { over = true; });
  let decisions = 0;
  while (!over) {
    const player = game.currentPlayer;
    const top = game.discardedCard;
    const plays = [];
    const seen = new Set();
    for (const card of player.hand) {
      const wild = WILD.has(card.value);
      const key = wild ? -1 - card.value : card.value * 8 + card.color;
      if (seen.has(key) || !(wild || card.matches(top))) continue;
      seen.add(key);
      if (wild) for (const colour of COLOURS) plays.push([card, colour]);
      else plays.push([card, null]);
    }
    decisions++;
    if (plays.length) {
      const [card, colour] = plays[Math.floor(Math.random() * plays.length)];
      if (colour !== null) card.color = colour;
      game.play(card);
    } else if (!game.drawn) {
      game.draw();
    } else {
      game.pass();
    }
  }
  return decisions;
}

const players = ['p0', 'p1'];
const lines = readline.createInterface({ input: process.stdin });
lines.on('line', (line) => {
  const dealOnly = line.startsWith('deal ');
  const rounds = parseInt(dealOnly ? line.slice(5) : line, 10);
  const start = process.cpuUsage();
  let decisions = 0;
  if (dealOnly) for (let i = 0; i < rounds; i++) new Game(players);
  else for (let i = 0; i < rounds; i++) decisions += playRound(players);
  const used = process.cpuUsage(start);
  const cpu = (used.user + used.system) / 1e6;
  process.stdout.write(JSON.stringify({ rounds, cpu_s: cpu, decisions }) + '\n');
});
