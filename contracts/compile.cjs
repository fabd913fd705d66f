// compile.cjs: compiles the contracts with the pinned solcjs (package.json)
// through its standard-JSON interface and writes one artifact per contract:
// OUTDIR/<Name>.json = {contractName, source, compiler, abi, bytecode}.
// Usage: node compile.cjs OUTDIR SOURCE.sol...
'use strict';
const fs = require('fs');
const path = require('path');
const solc = require('solc');

const [outDir, ...files] = process.argv.slice(2);
if (!outDir || files.length === 0) {
  console.error('usage: node compile.cjs OUTDIR SOURCE.sol...');
  process.exit(2);
}
const sources = {};
for (const f of files) sources[f] = { content: fs.readFileSync(f, 'utf8') };
const input = {
  language: 'Solidity',
  sources,
  settings: {
    optimizer: { enabled: true, runs: 1000 },
    evmVersion: 'cancun',
    outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
  },
};
const out = JSON.parse(solc.compile(JSON.stringify(input)));
let failed = false;
for (const e of out.errors || []) {
  console.error(e.formattedMessage);
  if (e.severity === 'error') failed = true;
}
if (failed) process.exit(1);
fs.mkdirSync(outDir, { recursive: true });
for (const [source, contracts] of Object.entries(out.contracts)) {
  for (const [name, c] of Object.entries(contracts)) {
    const artifact = {
      contractName: name,
      source,
      compiler: 'solc ' + solc.version(),
      settings: { optimizer: input.settings.optimizer, evmVersion: input.settings.evmVersion },
      abi: c.abi,
      bytecode: '0x' + c.evm.bytecode.object,
    };
    fs.writeFileSync(path.join(outDir, name + '.json'), JSON.stringify(artifact, null, 2) + '\n');
  }
}
