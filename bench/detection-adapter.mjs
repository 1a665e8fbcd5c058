// Adapter for ../shared/eval/score.mjs: shield's engine with every detector of this build on.
// Vectors are mapped to the corpus names (command -> cmdi here, sql -> sqli by score.mjs).
// Findings of the decode/limits vectors say "this value is hostile" but name no attack class;
// they count as a detection under the name 'encoding'. ldap is claimed since 2026-11-29 (eleventh
// session): patterns.ldap.filter-injection judges filter breakouts in scan.
// (this checkout's build, what '@shield/node' exports: a git worktree sharing another checkout's
// node_modules would resolve the package name to that checkout)
import { scan } from '../dist/middleware/index.js';

export const name = 'shield';
export const supports = ['xss', 'sqli', 'path', 'ssti', 'xxe', 'cmdi', 'ssrf', 'nosql', 'ldap'];

export function detect(text) {
  const out = new Set();
  for (const f of scan(text)) out.add(f.vector === 'decode' || f.vector === 'limits' ? 'encoding' : f.vector === 'command' ? 'cmdi' : f.vector);
  return [...out];
}
