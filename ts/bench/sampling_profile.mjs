// V8's sampling CPU profiler through the inspector, for profile_encode.mjs and profile_decode.mjs: `call` is run
// in batches of 20 for `seconds` while sampling every 50 µs, then the shares of the samples under the function
// named `entry` (encode or decode, from index.js or codec.js) are printed by function, self and inclusive, and
// with LINES=name by line of the functions of that name (V8's position ticks). Shares under 1% are noise.
import { Session } from "node:inspector/promises";

export async function sampleProfile(file, seconds, entry, call) {
  const s = new Session();
  s.connect();
  await s.post("Profiler.enable");
  await s.post("Profiler.setSamplingInterval", { interval: 50 });
  await s.post("Profiler.start");
  let calls = 0;
  const end = performance.now() + 1000 * +seconds;
  while (performance.now() < end) for (let i = 0; i < 20; i++, calls++) call();
  const { profile } = await s.post("Profiler.stop");
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const counts = new Map();
  for (const id of profile.samples) counts.set(id, (counts.get(id) ?? 0) + 1);
  const name = (n) => `${n.callFrame.functionName || "(anonymous)"} ${n.callFrame.url.split("/").pop()}:${n.callFrame.lineNumber + 1}`;
  const self = new Map(), total = new Map();
  let all = 0;
  // Inclusive time counts a function once per sample even when it recurses (the names on the stack as a set).
  const walk = (n, stack) => {
    const k = name(n), c = counts.get(n.id) ?? 0;
    all += c;
    self.set(k, (self.get(k) ?? 0) + c);
    const inner = stack.has(k) ? stack : new Set(stack).add(k);
    for (const key of inner) total.set(key, (total.get(key) ?? 0) + c);
    // (children's samples reach `total` as they are walked)
    for (const ch of n.children ?? []) walk(byId.get(ch), inner);
  };
  walk(byId.get(profile.nodes[0].id), new Set());
  const entryKey = [...total.keys()].find((k) => k.startsWith(`${entry} index.js`) || k.startsWith(`${entry} codec.js`));
  const base = total.get(entryKey) ?? all;
  console.log(`${file}: ${calls} calls, ${(1000 * +seconds / calls).toFixed(4)} ms a call; shares of the samples under ${entry} (${base})`);
  const top = (m, n) => [...m].filter(([k]) => !k.startsWith("(root)") && !k.startsWith("(program)") && !k.startsWith("(idle)")).sort((a, b) => b[1] - a[1]).slice(0, n);
  console.log("self:");
  for (const [k, v] of top(self, 30)) console.log((100 * v / base).toFixed(1).padStart(6), k);
  console.log("total (self and callees):");
  for (const [k, v] of top(total, 30)) console.log((100 * v / base).toFixed(1).padStart(6), k);
  // LINES=name: the samples of the functions of that name by line of their file (V8's position ticks).
  if (process.env.LINES) {
    const lines = new Map();
    for (const n of profile.nodes) {
      if (n.callFrame.functionName !== process.env.LINES) continue;
      for (const p of n.positionTicks ?? []) { const k = `${n.callFrame.url.split("/").pop()}:${p.line}`; lines.set(k, (lines.get(k) ?? 0) + p.ticks); }
    }
    console.log(`${process.env.LINES} by line:`);
    for (const [k, v] of [...lines].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log((100 * v / base).toFixed(1).padStart(6), k);
  }
}
