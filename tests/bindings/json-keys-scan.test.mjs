// scan() of a value that is a JSON object or array: operator and prototype keys inside it are
// reported (a server that JSON.parses the value would pass them to the database or a merge).
import { describe, it, expect } from 'vitest';
import { scan, Engine } from '@shield/node';

const keyRules = (v, e) => (e ? e.scan(v) : scan(v)).filter((f) => f.vector === 'nosql' || f.vector === 'prototype').map((f) => `${f.rule} ${f.matched}`);

describe('listed keys in JSON values', () => {
  it.each([
    ['{"$gt": ""}', 'patterns.nosql.operator-key $gt'],
    ['  {"user": {"$NE": null}}', 'patterns.nosql.operator-key $NE'],
    ['[{"name": {"$regex": ".*"}}]', 'patterns.nosql.operator-key $regex'],
    ['{"__proto__": {"isAdmin": true}}', 'patterns.prototype.pollution-key __proto__'],
    ['{"a": {"constructor": {"prototype": {}}}}', 'patterns.prototype.pollution-key constructor'],
    ['%7B%22%24where%22%3A%221%22%7D', 'patterns.nosql.operator-key $where'],
    ['{"\\u0024ne": 1}', 'patterns.nosql.operator-key $ne'],
  ])('%s', (v, want) => expect(keyRules(v)).toContain(want));

  it.each([
    '{"price": {"amount": 5}}', '{"currency$": "usd", "$": 1}', '{ not json $ne', 'see {"$ne": 1} inline', '{"$ne": 1',
    '["$ne", "__proto__"]', '{"constructorName": "x", "proto": 1}',
  ])('benign or not JSON: %s', (v) => expect(keyRules(v)).toEqual([]));

  it('rules.disable switches the key rules off for scan too', () => {
    const e = new Engine({ rules: { disable: ['patterns.nosql.operator-key'] } });
    expect(keyRules('{"$gt": ""}', e)).toEqual([]);
    expect(keyRules('{"__proto__": {}}', e)).toEqual(['patterns.prototype.pollution-key __proto__']);
  });
});

describe('operator keys written as JavaScript or query-string keys in any value', () => {
  it.each([
    ['{ $ne: 1 }', 'patterns.nosql.operator-key $ne:'],
    ["', $where: '1 == 1'", 'patterns.nosql.operator-key $where:'],
    ["$where: '1 == 1'", 'patterns.nosql.operator-key $where:'],
    ["true,\t$Where : 'sleep(100)'", 'patterns.nosql.operator-key $Where :'],
    ["{'$gt': ''}", "patterns.nosql.operator-key '$gt':"],
    ["', $or: [ {}, { 'a':'a", 'patterns.nosql.operator-key $or:'],
    ['a", "$where": "1==1', 'patterns.nosql.operator-key "$where":'],
    ['", "$gt": "', 'patterns.nosql.operator-key "$gt":'],
    ['{ $where: this.a == 1 }', 'patterns.nosql.operator-key $where:'],
    ['[$ne]=1', 'patterns.nosql.operator-key [$ne]'],
    ['user[$gt]=', 'patterns.nosql.operator-key [$gt]'],
    ['%5B%24regex%5D=.*', 'patterns.nosql.operator-key [$regex]'],
    ['user[$in][]=admin', 'patterns.nosql.operator-key [$in]'],
    ['filter[$or][0][name]=x', 'patterns.nosql.operator-key [$or]'],
    ['user[$ne] =1', 'patterns.nosql.operator-key [$ne]'],
    ['"$ne:1', 'patterns.nosql.operator-key $ne:'],
    ['user.$ne=1', 'patterns.nosql.operator-key .$ne='],
    ['name=a&pass.$regex=^a', 'patterns.nosql.operator-key .$regex='],
    ['filter.role.$in=admin', 'patterns.nosql.operator-key .$in='],
  ])('%s', (v, want) => expect(keyRules(v)).toContain(want));

  it.each([
    'echo $text: done', 'Price $in: 5', 'costs $5: cheap', 'a$ne:1', 'x $HOME:/bin', "{'$gt' ''}", '$nevermind: x', '[$price]=5',
    'see {$ne} here', 'ratio $ne::x', '$_GET[$type]', 'x[$size]', '$arr[$set] = 1;', '$arr[$set]=1', 'Options ($in: stock)',
    'Fields: $size, $type: both', '{"$schema": "x", "$comment": "hi"}', "' } ], $comment:'x'", 'see {"a": 1, "$ne": 1} inline',
    'Why does {"status": "A", "$or": [{"qty": 5}]} fail?', '$arr[$set][0] = 1',
    '$obj.$set=1', 'echo $a.$in=3', 'total.$5=', 'Set user.$name = x', 'see a.$ne here',
  ])('benign: %s', (v) => expect(keyRules(v)).toEqual([]));

  it('rules.disable switches it off', () => {
    const e = new Engine({ rules: { disable: ['patterns.nosql.operator-key'] } });
    expect(keyRules('{ $ne: 1 }', e)).toEqual([]);
  });

  it("a string that ends a $where expression and stalls it: ';sleep(", () => {
    expect(scan("';sleep(5000);").map((f) => f.rule)).toContain('patterns.nosql.where-injection');
    expect(scan('";sleep(5000);"').map((f) => f.rule)).toContain('patterns.nosql.where-injection');
  });

  it.each([
    "'; return true; var dummy='", "' ; return true //", '"; return true; //', "'; sleep(5000); var x='",
    "'; return(true); //", "'}); return true; //", "'; while(1); //", "';while(true){}//", "'; for(;;){} //",
  ])('a $where string ended with a space after the semicolon: %s', (v) => {
    expect(scan(v).map((f) => f.rule)).toContain('patterns.nosql.where-injection');
  });

  it.each([
    "';\treturn true; var a='", "';   return this.role == 'admin' //", "';\n\nreturn true//", '";\r\n sleep(5000); var b="',
    "'; \twhile(true){} //",
  ])('the same with any run of white space after the semicolon (JavaScript reads them alike): %j', (v) => {
    const f = scan(v).find((x) => x.rule === 'patterns.nosql.where-injection');
    expect(f).toBeDefined();
    expect(v.slice(f.start, f.end)).toMatch(/^['"];\s+(return|sleep|while)/);
  });

  it.each([
    'Keep the box;\treturn it within 30 days', 'save();   return true;', "It's fine;\n\nreturn true to form",
  ])('prose and code with white space runs there: %j', (v) => {
    expect(scan(v).map((f) => f.rule)).not.toContain('patterns.nosql.where-injection');
  });

  it.each([
    'Keep the box; return it within 30 days', 'Keep the box; return this item by Friday',
    "It's fine; return true to form", 'If you hate it; return this.', 'if (ok) { save(); return true; }',
    'doIt(); return true // done',
    "Shop 'til you drop; while(stocks) last", 'loop(); while(1) { }', 'for(;;) is an endless loop in C',
  ])('prose and code with a semicolon and "return": %s', (v) => {
    expect(scan(v).map((f) => f.rule)).not.toContain('patterns.nosql.where-injection');
  });
});
