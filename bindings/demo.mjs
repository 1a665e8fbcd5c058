#!/usr/bin/env node
// `npm start` for this milestone: shows what the engine finds in a few request values, or in
// the values given on the command line (`npm start -- "<svg onload=alert(1)>" "O'Brien"`).
// The control plane, dashboard and demo app that `npm start` will run arrive with their issues.
import { scanValues, sanitizeString, decode } from '@shield/node';

const samples = process.argv.slice(2).length > 0 ? process.argv.slice(2) : [
  'red shoes size 9',
  "O'Brien",
  'please select a drop date',
  "1' OR 1=1--",
  '%3Csvg%2Fonload%3Dalert(1)%3E',
  '..%c0%af..%c0%afetc/passwd',
  'UNION/**/SELECT password FROM users',
  'java&#x09;script:alert(document.cookie)',
];

const findings = scanValues(samples); // one engine call for all of them, as for one request
samples.forEach((value, i) => {
  console.log(`value     ${JSON.stringify(value)}`);
  const decoded = decode(value);
  if (decoded !== value) console.log(`decoded   ${JSON.stringify(decoded)}`);
  if (findings[i].length === 0) console.log('findings  none');
  for (const f of findings[i]) console.log(`finding   ${f.rule}  matched ${JSON.stringify(f.matched)}  [${f.start}, ${f.end})`);
  console.log(`sanitized ${JSON.stringify(sanitizeString(value))}\n`);
});
