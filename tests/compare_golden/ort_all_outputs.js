// Runs an ONNX model once with ONNX Runtime CPU (onnxruntime-node, graph optimizations off so that
// every node computes as the model says) and saves the graph outputs a spec names as .npy files.
// Usage: NODE_PATH=<dir holding onnxruntime-node> node ort_all_outputs.js SPEC.json
//   SPEC.json: {"model": "M.onnx", "inputs": {"<name>": "x.npy"}, "outputs": {"<tensor name>": "out.npy"}}
// float32 and int64 tensors (inputs and saved outputs); other outputs are skipped with a line on stderr.
// Prints one JSON line: {"runtime": "onnxruntime", "version": ..., "saved": N}.
const fs = require('fs');
const ort = require('onnxruntime-node');

const kTypes = { '<f4': ['float32', Float32Array], '<i8': ['int64', BigInt64Array] };

function loadNpy(path) {
  const buf = fs.readFileSync(path);
  if (buf.toString('latin1', 1, 6) !== 'NUMPY') throw new Error(path + ': not a .npy file');
  const v1 = buf[6] === 1, hlen = v1 ? buf.readUInt16LE(8) : buf.readUInt32LE(8), hoff = v1 ? 10 : 12;
  const header = buf.toString('latin1', hoff, hoff + hlen);
  const descr = /'descr':\s*'([^']+)'/.exec(header)[1];
  if (/'fortran_order':\s*True/.test(header)) throw new Error(path + ': Fortran-ordered arrays are not read');
  const shape = /'shape':\s*\(([^)]*)\)/.exec(header)[1].split(',').map(s => s.trim()).filter(Boolean).map(Number);
  if (!kTypes[descr]) throw new Error(path + ': unsupported dtype ' + descr + ' (float32 or int64)');
  const [type, Array] = kTypes[descr];
  const bytes = buf.subarray(hoff + hlen);
  return new ort.Tensor(type, new Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)), shape);
}

// Written whole under a temporary name, then renamed: no half-written golden file.
function saveNpy(path, tensor) {
  const descr = { float32: '<f4', int64: '<i8' }[tensor.type];
  const dims = tensor.dims.join(', ') + (tensor.dims.length === 1 ? ',' : '');
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': (${dims}), }`;
  header += ' '.repeat(63 - ((10 + header.length) % 64)) + '\n';
  const pre = Buffer.alloc(10);
  pre.write('\x93NUMPY', 0, 'latin1'); pre[6] = 1; pre[7] = 0; pre.writeUInt16LE(header.length, 8);
  const data = Buffer.from(tensor.data.buffer, tensor.data.byteOffset, tensor.data.byteLength);
  fs.writeFileSync(path + '.tmp', Buffer.concat([pre, Buffer.from(header, 'latin1'), data]));
  fs.renameSync(path + '.tmp', path);
}

(async () => {
  const spec = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
  const sess = await ort.InferenceSession.create(spec.model, { executionProviders: ['cpu'],
    graphOptimizationLevel: 'disabled', intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential' });
  const feeds = {};
  for (const [name, path] of Object.entries(spec.inputs)) feeds[name] = loadNpy(path);
  const out = await sess.run(feeds);
  let saved = 0;
  for (const [name, path] of Object.entries(spec.outputs)) {
    const t = out[name];
    if (!t) throw new Error('ONNX Runtime gave no output named ' + name);
    if (t.type !== 'float32' && t.type !== 'int64') { console.error(`skipped ${name}: ${t.type}`); continue; }
    saveNpy(path, t);
    ++saved;
  }
  console.log(JSON.stringify({ runtime: 'onnxruntime', version: ort.env.versions.common, saved }));
})().catch(e => { console.error(String(e)); process.exit(1); });
