// ONNX Runtime (onnxruntime-node, CPU) on one model: every output saved, and latency.
// Usage: NODE_PATH=PEERS/node_modules node bench/ort_zoo.js MODEL.onnx INPUT.npy
//            [--outputs DIR] [--threads N] [--warmup N] [--runs N] [--profile PREFIX]
// With --outputs, writes DIR/output_<i>.npy for every output in the model's order (the names
// `openge run --outputs` uses). With --profile, ONNX Runtime writes its per-node profile (Chrome
// trace JSON, PREFIX_<date>.json), to set beside `openge run --profile`'s op times.
// Prints one JSON line: {median, p90, min (ms), load_ms, threads, version}.
// The model has one input (float32 or int64 .npy); outputs may be float32, int64, int32 or bool.
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');

const NPY_TYPES = { '<f4': ['float32', Float32Array], '<i8': ['int64', BigInt64Array] };
const DESCR = { float32: '<f4', int64: '<i8', int32: '<i4', bool: '|b1', uint8: '|u1' };

function loadNpy(file) {
  const buf = fs.readFileSync(file);
  if (buf.toString('latin1', 1, 6) !== 'NUMPY') throw new Error(file + ': not a .npy file');
  const v1 = buf[6] === 1, hlen = v1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8), hoff = v1 ? 10 : 12;
  const header = buf.toString('latin1', hoff, hoff + hlen);
  const descr = /'descr':\s*'([^']+)'/.exec(header)[1];
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header)[1].split(',').map(s => s.trim()).filter(Boolean).map(Number);
  if (!NPY_TYPES[descr]) throw new Error(file + ': unsupported dtype ' + descr);
  const bytes = buf.subarray(hoff + hlen);
  const [type, Array_] = NPY_TYPES[descr];
  return new ort.Tensor(type, new Array_(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)), shape);
}

function saveNpy(file, tensor) {
  const descr = DESCR[tensor.type];
  if (!descr) throw new Error('cannot save output of type ' + tensor.type);
  const dims = tensor.dims;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${dims.join(', ')}${dims.length === 1 ? ',' : ''}), }`;
  header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n';
  const pre = Buffer.alloc(10);
  pre.write('\x93NUMPY', 0, 'latin1'); pre[6] = 1; pre[7] = 0; pre.writeUInt16LE(header.length, 8);
  const data = tensor.type === 'bool' ? Buffer.from(Uint8Array.from(tensor.data, v => (v ? 1 : 0)))
                                      : Buffer.from(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength);
  const tmp = file + '.tmp';
  fs.writeFileSync(tmp, Buffer.concat([pre, Buffer.from(header, 'latin1'), data]));
  fs.renameSync(tmp, file);
}

(async () => {
  const args = process.argv.slice(2);
  const flag = (name, dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
  const [model, input] = args;
  if (!model || !input) throw new Error('usage: ort_zoo.js MODEL.onnx INPUT.npy [--outputs DIR] [--threads N] [--warmup N] [--runs N] [--profile PREFIX]');
  const threads = Number(flag('--threads', 1)), warmup = Number(flag('--warmup', 3)), runs = Number(flag('--runs', 10));
  const t0 = process.hrtime.bigint();
  const profile = flag('--profile');
  const sess = await ort.InferenceSession.create(model, { executionProviders: ['cpu'], graphOptimizationLevel: 'all',
    intraOpNumThreads: threads, interOpNumThreads: 1, executionMode: 'sequential',
    ...(profile ? { enableProfiling: true, profileFilePrefix: profile } : {}) });
  const loadMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const feeds = { [sess.inputNames[0]]: loadNpy(input) };
  let out = await sess.run(feeds);
  for (let i = 1; i < warmup; i++) out = await sess.run(feeds);
  const times = [];
  for (let i = 0; i < runs; i++) {
    const s = process.hrtime.bigint();
    out = await sess.run(feeds);
    times.push(Number(process.hrtime.bigint() - s) / 1e6);
  }
  if (profile) sess.endProfiling();
  const dir = flag('--outputs');
  if (dir) sess.outputNames.forEach((name, i) => saveNpy(path.join(dir, `output_${i}.npy`), out[name]));
  const s = times.sort((a, b) => a - b), q = p => s.length ? s[Math.min(s.length - 1, Math.round((s.length - 1) * p))] : null;
  console.log(JSON.stringify({ runtime: 'onnxruntime', version: ort.env.versions.common, threads, median: q(0.5), p90: q(0.9),
                               min: s[0] ?? null, load_ms: loadMs }));
})().catch(e => { console.error(String(e)); process.exit(1); });
