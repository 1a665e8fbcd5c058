// Deterministic generator of BENIGN values a web app receives (query strings, form fields, JSON bodies).
// Usage: node bench/benign-stress/gen.mjs [seed] [--out values.jsonl]   (or import { generate } from './gen.mjs')
// Every value is tagged { family, sub, value }. All vocabularies and templates written by hand here.

export function mulberry32(seed) {
  let a = seed >>> 0;
  return function () {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const W = (s) => s.trim().split(/\s+/);

// ---------------------------------------------------------------- vocabularies
const UNIXISH = W(`id type more find sort head tail date time set env ls cat ps top who kill pwd ver host hostname
  uptime user passwd mail dig file path start call at net less echo copy move read wait exit source stat strings cut
  rev tee wc nl od reg sc del dir ren touch sleep ping node java ruby php python tar export exec timeout expect trap su
  dash grep sed awk man free df du which more`);
const FIELDS = W(`name email created updated status price qty sku title description category country city zip phone
  first_name last_name firstName lastName amount currency owner tags priority score rating active role group region
  address address2 state postcode company department manager salary balance total subtotal tax discount notes comment
  url slug author published views likes stock weight color size brand model year month day week quarter label code
  count avg min max sum parent child level rank version checksum hash created_at updated_at deleted_at createdAt
  updatedAt uuid ref reference invoice order_id customer_id product_id user_id account_id team project task due
  assignee reporter severity component milestone sprint estimate progress lat lng latitude longitude timezone locale
  language gender age birthday nickname avatar bio website twitter github linkedin score2 kind note memo`);
const ALLFIELDS = FIELDS.concat(UNIXISH, UNIXISH); // unix-ish words appear often as column names
const FIRST = W(`James Mary John Patricia Robert Jennifer Michael Linda William Elizabeth David Barbara Richard Susan
  Joseph Jessica Thomas Sarah Charles Karen Chris Nancy Daniel Lisa Matthew Betty Anthony Margaret Mark Sandra Donald
  Ashley Steven Kim Paul Emily Andrew Donna Joshua Michelle Kenneth Carol Kevin Amanda Brian Melissa George Deborah
  Ana Luis Sofia Mateo Chloe Lucas Emma Noah Olivia Liam Aisha Omar Fatima Yusuf Priya Arjun Wei Mei Hiroshi Yuki
  Sven Ingrid Lars Astrid Pierre Amelie Jean Marie Giulia Marco Francesca Pablo Lucia Seamus Siobhan Niamh Ciaran
  Tom Jerry Ben Jerry Sam Max Alex Jo Kai Noor Zoe Ivy Eli Ada Ida Ian Ray Roy Lee`);
const LAST = W(`Smith Johnson Williams Brown Jones Garcia Miller Davis Rodriguez Martinez Hernandez Lopez Gonzalez
  Wilson Anderson Thomas Taylor Moore Jackson Martin Lee Perez Thompson White Harris Sanchez Clark Ramirez Lewis
  Robinson Walker Young Allen King Wright Scott Torres Nguyen Hill Flores Green Adams Nelson Baker Hall Rivera
  Campbell Mitchell Carter Roberts Kowalski Nowak Schmidt Muller Rossi Bianchi Dubois Moreau Tanaka Sato Kim Park
  Chen Wang Patel Singh Khan Ali Cohen Levi Murphy Kelly Walsh Byrne Ryan Sullivan Host Cat Head Tail Find Kill
  Sleep Date More Set Start Call Mail File Path Type Sort Less Echo Copy Move Read Wait Stat`);
const APOS_LAST = W(`O'Brien O'Neill O'Connor O'Reilly O'Sullivan O'Malley O'Hara O'Donnell D'Angelo D'Amico D'Souza
  D'Arcy L'Amour Dell'Acqua Van't-Hof N'Diaye M'Bala O'Toole O'Keefe McDonald's D'Alessandro Dall'Ara O'Leary`);
const CITY = W(`Springfield Riverside Franklin Greenville Bristol Clinton Salem Madison Georgetown Arlington Fairview
  Portland Austin Denver Boston Seattle Chicago Dublin Cork Galway London Leeds Paris Lyon Berlin Munich Hamburg
  Milan Rome Madrid Seville Lisbon Porto Oslo Bergen Tokyo Osaka Seoul Mumbai Pune Toronto Vancouver Sydney Perth`);
const STREET = W(`Main Oak Pine Maple Cedar Elm Washington Lake Hill Park View Church High Station Mill River Union
  Market Bridge Kings Queens Victoria Spring Sunset Harbor Meadow Forest Select Delete Order Drop Hostname Find`);
const STREET_T = W(`St Street Ave Avenue Rd Road Blvd Ln Lane Dr Drive Ct Way Pl Square Terrace`);
const ADJ = W(`great good fine nice quick slow cheap pricey friendly rude clean dirty fresh stale warm cold quiet
  noisy tiny huge solid flimsy lovely awful decent perfect broken reliable comfy sturdy soft crisp tasty bland spicy
  amazing terrible okay fast simple complicated modern classic cozy bright dark`);
const NOUN = W(`product order delivery service staff room food price app update screen battery charger cable box
  package shoes shirt jacket coffee tea pizza burger salad soup bread cake sofa chair table lamp desk bed pillow
  blanket phone laptop tablet mouse keyboard monitor printer router ticket invoice account password login page
  button menu report dashboard chart export file folder session team meeting call schedule calendar reminder note
  cat dog kids garden car bike train bus flight hotel breakfast dinner lunch sauce pepper salt butter garlic onion`);
const VERB = W(`love like hate need want use buy return order try recommend bought ordered tried returned fixed broke
  opened closed updated changed reset moved copied deleted found lost sent received paid booked cancelled`);
const FOOD = W(`salt pepper garlic onion butter flour sugar eggs milk cream cheese basil oregano thyme rosemary
  parsley cumin paprika chili ginger lemon lime honey vinegar olive-oil tomatoes potatoes carrots celery rice pasta
  beans chicken beef pork tofu mushrooms spinach kale apples pears bananas oats yogurt`);
const TLD = W(`com org net io dev co.uk de fr app shop info`);
const DOMWORD = W(`acme example shopify widgets bluebird northwind contoso fabrikam globex initech umbrella hooli
  piedpiper stark wayne wonka cyberdyne tyrell soylent vandelay dunder mail files docs status api cdn host`);
const TECHTERM = W(`grep ls cat less more find sort head tail awk sed curl wget ssh scp tar chmod chown ps top kill
  echo ping dig nslookup whoami uname ifconfig netstat crontab sudo env export xargs tee wc diff rsync systemctl
  journalctl docker kubectl git npm node python pip make vim nano`);
const SHELL_Q = [
  'how to use %c -r', 'what does ls -la do', 'difference between cat and less', 'difference between %c and %c',
  '%c command examples', '%c vs %c', 'how do I %c a file in linux', 'linux %c options', 'man %c',
  '%c not working on mac', 'what is %c used for', '%c | %c pipe example', 'why does %c hang',
  'kill -9 vs kill -15', 'sort -n vs sort -g', 'find . -name "*.log"', 'tail -f equivalent in windows',
  'how to exit vim', 'chmod 755 meaning', 'what does 2>&1 mean', 'bash if [ -f file ]', 'grep -v multiple patterns',
  'how to set env variable in windows', 'ps aux | grep node meaning', 'cat file.txt | wc -l', 'ls -lh sort by size',
  'difference between && and ; in bash', 'what does && mean in bash', 'sleep command in batch file',
  'ping -c 4 google.com explained', 'head -n 20 file', 'date +%Y-%m-%d format', 'du -sh * sorted',
];

// ---------------------------------------------------------------- generator
export function generate(seed = 1337, target = 36000) {
  const r = mulberry32(seed);
  const int = (a, b) => a + Math.floor(r() * (b - a + 1));
  const pick = (arr) => arr[Math.floor(r() * arr.length)];
  const chance = (p) => r() < p;
  const picks = (arr, n) => { const out = new Set(); let g = 0; while (out.size < n && g++ < n * 20) out.add(pick(arr)); return [...out]; };
  const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);
  const casing = (s) => { const x = r(); return x < 0.7 ? s : x < 0.85 ? cap(s) : x < 0.95 ? s.toUpperCase() : s.replace(/(^|_)(\w)/g, (m, a, b) => a + b.toUpperCase()); };
  const sep = (c) => pick([c, c, c + ' ', ' ' + c + ' ', ' ' + c]);
  const ip = () => pick(['10', '10', '192.168', '172.16']) === '10' ? `10.${int(0, 3)}.${int(0, 255)}.${int(1, 254)}` : pick([`192.168.${int(0, 10)}.${int(1, 254)}`, `172.${int(16, 31)}.${int(0, 255)}.${int(1, 254)}`]);
  const hostn = () => pick(['db', 'web', 'app', 'mail', 'cache', 'lb', 'api', 'worker', 'nas', 'vpn', 'dns', 'build', 'host', 'node', 'srv']) + String(int(1, 40)).padStart(2, '0');
  const fullname = () => `${pick(FIRST)} ${chance(0.2) ? pick(APOS_LAST) : pick(LAST)}`;
  const email = () => `${pick(FIRST).toLowerCase()}${pick(['.', '_', '', '-'])}${pick(LAST).toLowerCase().replace(/'/g, '')}${chance(0.3) ? int(1, 99) : ''}@${pick(DOMWORD)}.${pick(TLD)}`;
  const money = () => `${pick(['$', '€', '£', ''])}${int(1, 999)}.${String(int(0, 99)).padStart(2, '0')}`;
  const dateS = () => `${int(2019, 2025)}-${String(int(1, 12)).padStart(2, '0')}-${String(int(1, 28)).padStart(2, '0')}`;
  const timeS = () => `${String(int(0, 23)).padStart(2, '0')}:${pick(['00', '15', '30', '45', String(int(0, 59)).padStart(2, '0')])}`;
  const num = () => pick([String(int(0, 9)), String(int(10, 999)), String(int(1000, 99999)), `${int(0, 99)}.${int(0, 99)}`]);
  const cell = (col) => {
    switch (col.toLowerCase().replace(/_/g, '')) {
      case 'email': return email();
      case 'name': case 'user': case 'owner': case 'author': case 'assignee': return fullname();
      case 'date': case 'created': case 'updated': case 'createdat': case 'updatedat': case 'due': return dateS();
      case 'time': return timeS();
      case 'id': case 'userid': case 'orderid': return String(int(1, 99999));
      case 'host': case 'hostname': return hostn();
      case 'price': case 'amount': case 'total': return money();
      case 'status': return pick(['active', 'inactive', 'pending', 'done', 'open', 'closed', 'shipped', 'paid']);
      case 'type': case 'kind': return pick(['file', 'folder', 'user', 'admin', 'guest', 'mail', 'host', 'net', 'cat', 'link', 'more', 'set']);
      case 'city': return pick(CITY);
      case 'path': case 'file': return pick(['/home/', '/var/data/', 'C:\\Users\\', 'docs/', './']) + pick(NOUN) + pick(['.txt', '.csv', '.pdf', '.png', '']);
      default: return chance(0.5) ? num() : pick([pick(NOUN), pick(ADJ), pick(UNIXISH), pick(CITY), fullname()]);
    }
  };

  const out = [];
  const seen = new Set();
  const add = (family, sub, value) => { if (!seen.has(value)) { seen.add(value); out.push({ family, sub, value }); } };

  // ---------------- family: fields (column lists, sort specs, csv)
  const fields = () => {
    const n = int(2, 7);
    const cols = picks(ALLFIELDS, n).map((c) => chance(0.15) ? casing(c) : c);
    const k = int(0, 13);
    if (k === 0) return ['pipe-list', cols.join(sep('|'))];
    if (k === 1) return ['semi-list', cols.join(sep(';'))];
    if (k === 2) return ['fields-param', `${pick(['fields', 'columns', 'select', 'include', 'attrs', 'cols', 'fields[user]', 'only'])}=${cols.join(pick([',', ',', '|', ';', '%2C']))}`];
    if (k === 3) return ['sort-spec', `${pick(['sort', 'order', 'orderBy', 'sort_by', 'ordering'])}=${cols.slice(0, int(1, 3)).map((c) => (chance(0.4) ? '-' : '') + c).join(pick([',', '|', ';']))}`];
    if (k === 4) return ['sort-spec', cols.slice(0, int(1, 3)).map((c) => `${c} ${pick(['asc', 'desc', 'ASC', 'DESC'])}`).join(pick([', ', ',', '; ', '|']))];
    if (k === 5) return ['csv-header', cols.join(pick([';', '|', ';', '\t', ',']))];
    if (k === 6 || k === 7) { const d = pick([';', '|', ';']); return ['csv-row', cols.map(cell).join(d)]; }
    if (k === 8) { const d = pick([';', '|']); return ['csv-multiline', [cols.join(d), ...Array.from({ length: int(1, 4) }, () => cols.map(cell).join(d))].join(pick(['\n', '\r\n']))]; }
    if (k === 9) return ['sort-spec', `${pick(['sort', 'order'])}=${pick(ALLFIELDS)}|${pick(['-', ''])}${pick(ALLFIELDS)}`];
    if (k === 10) return ['filter-spec', `${pick(['filter', 'q', 'where'])}=${pick(ALLFIELDS)}:${cell(pick(ALLFIELDS))};${pick(ALLFIELDS)}:${pick(['open', 'true', 'false', String(int(1, 9))])}`];
    if (k === 11) return ['pipe-list', `${pick(UNIXISH)}|${pick(UNIXISH)}${chance(0.5) ? '|' + pick(UNIXISH) : ''}`];
    if (k === 12) return ['semi-list', `${pick(UNIXISH)};${pick(UNIXISH)}${chance(0.5) ? ';' + pick(ALLFIELDS) : ''}`];
    return ['group-by', `${pick(['groupBy', 'group_by', 'pivot', 'split'])}=${cols.slice(0, 2).join(pick([',', '|', ';']))}`];
  };

  // ---------------- family: inventory / config
  const inventory = () => {
    const k = int(0, 13);
    if (k === 0) return ['ip-role', `${ip()}${sep('|')}${pick(['mail', 'db', 'web', 'dns', 'ldap', 'backup', 'cache', 'proxy', 'printer', 'nas', 'vpn', 'ntp', 'host', 'file', 'ftp', 'ssh', 'node', 'set', 'net'])}`];
    if (k === 1) return ['host-line', `${hostn()}${sep(';')}${ip()}${sep(';')}${pick(['id', 'rack', 'vlan', 'port', 'slot', 'owner', 'tag'])} ${int(1, 99)}`];
    if (k === 2) return ['kv-list', Array.from({ length: int(2, 5) }, () => pick([`host=${hostn()}`, `port=${pick([22, 80, 443, 5432, 3306, 6379, 8080, 9200])}`, `user=${pick(FIRST).toLowerCase()}`, `db=${pick(DOMWORD)}`, `timeout=${int(1, 60)}`, `retries=${int(0, 5)}`, `mode=${pick(['ro', 'rw', 'fast', 'safe'])}`, `env=${pick(['prod', 'staging', 'dev'])}`, `path=/var/${pick(NOUN)}`, `type=${pick(['file', 'mail', 'net'])}`, `start=${timeS()}`, `sort=${pick(FIELDS)}`])).join(sep(';'))];
    if (k === 3) return ['conn-string', `Server=${hostn()}${pick(['.corp.local', '', ',1433'])};Database=${pick(DOMWORD)};User Id=${pick(FIRST).toLowerCase()};Password=${pick(ADJ)}${int(10, 999)}!;${pick(['Encrypt=True;', 'TrustServerCertificate=true;', 'Connect Timeout=30;', ''])}`];
    if (k === 4) return ['conn-string', `${pick(['postgres', 'postgresql', 'mysql', 'redis', 'mongodb', 'amqp'])}://${pick(FIRST).toLowerCase()}@${hostn()}:${pick([5432, 3306, 6379, 27017, 5672])}/${pick(DOMWORD)}${chance(0.5) ? '?sslmode=require&connect_timeout=10' : ''}`];
    if (k === 5) return ['conn-string', `Host=${hostn()};Port=${pick([5432, 5433])};Username=${pick(FIRST).toLowerCase()};Password=secret${int(1, 99)};Database=${pick(DOMWORD)}`];
    if (k === 6) return ['cron-prose', `${pick(['Runs', 'Backup runs', 'Report goes out', 'Sync starts', 'Job fires', 'Cleanup happens'])} ${pick(['every day', 'every Monday', 'weekdays', 'on the 1st', 'hourly', 'every 15 minutes'])} at ${timeS()}${sep(';')}${pick(['sends mail to ops', 'kill it if it takes more than 2h', 'check the log file afterwards', 'sleep 10 min between retries', 'set the timeout to 30s', 'find the output in /var/log', 'head count is emailed at 9'])}`];
    if (k === 7) return ['asset-row', [hostn(), ip(), pick(['nginx', 'postgres', 'redis', 'mail', 'bind', 'samba', 'cups', 'node', 'java']), pick(['up', 'down', 'maint']), pick(CITY)].join(sep('|'))];
    if (k === 8) return ['ip-role', `${pick(['gw', 'dns', 'ntp', 'mail', 'host', 'db'])}: ${ip()}${sep(';')}${pick(['gw', 'dns', 'ntp', 'mail', 'backup'])}: ${ip()}`];
    if (k === 9) return ['port-list', `${pick(['ssh', 'http', 'https', 'smtp', 'dns', 'ftp'])} ${pick([22, 80, 443, 25, 53, 21])}/tcp${sep(';')}${pick(['mail', 'ntp', 'ldap', 'host'])} ${int(100, 9999)}/udp`];
    if (k === 10) return ['env-line', `${pick(['NODE_ENV', 'PORT', 'LOG_LEVEL', 'HOST', 'TZ', 'PATH_PREFIX'])}=${pick(['production', '3000', 'info', 'localhost', 'UTC', '/api'])}; ${pick(['DB_HOST', 'MAIL_HOST', 'CACHE_TTL', 'USER'])}=${pick([hostn(), '300', 'app'])}`];
    if (k === 11) return ['device-label', `${pick(['Printer', 'Switch', 'AP', 'Camera', 'NAS', 'UPS'])} ${pick(['2nd floor', 'lobby', 'server room', 'warehouse', 'kitchen'])} | ${ip()} | id ${int(1, 500)}`];
    if (k === 12) return ['dsn-kv', `dbname=${pick(DOMWORD)} host=${hostn()} port=5432 user=${pick(FIRST).toLowerCase()} sslmode=${pick(['require', 'disable', 'verify-full'])}`];
    return ['ip-role', `${ip()} ${pick(['-', '|', ';', '&'])} ${pick(['file server', 'mail relay', 'print server', 'time server', 'domain controller', 'test host', 'dev box'])}`];
  };

  // ---------------- family: prose with ; & | :
  const REVIEW = [
    () => `${cap(pick(ADJ))} ${pick(NOUN)}; ${pick(ADJ)} ${pick(NOUN)}. Would ${pick(['buy', 'order', 'recommend'])} again!`,
    () => `The ${pick(NOUN)} was ${pick(ADJ)} & the ${pick(NOUN)} was ${pick(ADJ)}.`,
    () => `Pros: ${pick(ADJ)}, ${pick(ADJ)}; Cons: ${pick(ADJ)} ${pick(NOUN)} | ${int(1, 5)}/5`,
    () => `I ${pick(VERB)} it & my ${pick(['wife', 'husband', 'son', 'daughter', 'mom', 'dad', 'boss', 'cat', 'dog'])} ${pick(['loves', 'hates', 'likes'])} it too; ${pick(['more', 'less', 'no'])} complaints.`,
    () => `${int(1, 5)} stars | ${pick(ADJ)} ${pick(NOUN)} | ${pick(['fast shipping', 'slow shipping', 'would buy again', 'meh', 'ok for the price'])}`,
    () => `Bought this for my ${pick(['cat', 'dog', 'kid', 'office', 'kitchen'])}; ${pick(['more', 'less'])} ${pick(ADJ)} than expected & ${pick(['easy', 'hard'])} to ${pick(['set', 'clean', 'find', 'start', 'sort'])} up.`,
    () => `cat food arrived late; ${pick(['cat', 'dog'])} ${pick(['loves', 'ignores'])} it anyway`,
    () => `Great for ${pick(['kids', 'travel', 'camping', 'work'])} & ${pick(['home', 'school', 'the office'])}; ${pick(['type', 'size', 'color'])} is ${pick(ADJ)}`,
  ];
  const TICKET = [
    () => `Hi, I can't ${pick(['login', 'log in', 'reset my password', 'find my invoice', 'export the report', 'change my email'])}; ${pick(['tried', 'already tried'])} ${pick(['Chrome & Firefox', 'clearing cache & cookies', 'another device', 'incognito'])}. ${pick(['Please help', 'Thanks', 'Any ideas?'])}`,
    () => `Order #${int(10000, 99999)}: ${pick(['wrong size', 'missing item', 'damaged box', 'never arrived'])}; ${pick(['please refund', 'need a replacement', 'call me at ' + int(200, 999) + '-' + int(100, 999) + '-' + int(1000, 9999)])}`,
    () => `Error on ${pick(['checkout', 'login', 'upload', 'settings'])} page | ${pick(['Chrome', 'Safari', 'Edge', 'Firefox'])} ${int(90, 130)} | ${pick(['Windows 11', 'macOS 14', 'Android 14', 'iOS 17'])}`,
    () => `Steps: open ${pick(['settings', 'reports', 'profile'])}; click ${pick(['export', 'save', 'more', 'find', 'sort'])}; ${pick(['nothing happens', 'page freezes', 'get error 500', 'spinner forever'])}`,
    () => `${pick(['Printer', 'Laptop', 'VPN', 'Outlook', 'Teams'])} ${pick(['not working', 'keeps crashing', 'slow'])} since ${pick(['Monday', 'the update', 'yesterday'])}; ${pick(['restart', 'reboot', 'reinstall'])} didn't help & ${pick(['IT', 'my manager', 'nobody'])} knows why`,
    () => `Can you set up ${pick(['mail', 'VPN', 'a new account', 'access'])} for ${fullname()}? Start date ${dateS()}; ${pick(['team', 'dept'])}: ${pick(['R&D', 'Sales', 'Q&A', 'HR', 'Ops', 'M&A'])}`,
    () => `Please kill the ${pick(['job', 'process', 'export', 'sync'])} that's stuck; it's been running since ${timeS()} & blocking ${pick(['reports', 'everyone', 'my team'])}`,
    () => `Type of issue: ${pick(['billing', 'technical', 'account', 'other'])} | Priority: ${pick(['low', 'normal', 'high'])} | Host: ${hostn()}`,
  ];
  const CHAT = [
    () => `${pick(['lol', 'haha', 'ok', 'sure', 'yep', 'nah'])}; ${pick(['see you at', 'call me at', 'meet at', 'back at'])} ${int(1, 12)}${pick(['', 'pm', 'am', ':30'])}`,
    () => `${pick(['brb', 'omw', 'ttyl', 'gtg'])} & ${pick(['bring snacks', 'grab coffee', 'kill time at the mall', 'find parking'])}`,
    () => `${pick(['Who', 'What', 'Where'])} is ${pick(['coming', 'bringing food', 'hosting'])}? ${pick(['Tom & Jerry', 'Ben & Jerry', 'Sam & Max', pick(FIRST) + ' & ' + pick(FIRST)])} said ${pick(['yes', 'maybe', 'no'])}`,
    () => `type your message here`, () => `Type your message...`,
    () => `${pick(['need to', 'gonna', 'should'])} sleep ${int(6, 10)} hours tonight; ${pick(['so tired', 'long day', 'early start'])}`,
    () => `just kill time ${pick(['until', 'till'])} ${int(1, 11)}; ${pick(['then', 'after that'])} ${pick(['dinner', 'movie', 'gym'])}`,
    () => `${pick(FIRST)}: ${pick(['ping me', 'echo that', 'copy & paste it', 'find it', 'cat pics pls'])} ${pick(['when you can', 'later', 'asap', ''])}`.trim(),
    () => `ping me when you're free | ${pick(['no rush', 'thx', 'cheers'])}`,
    () => `${pick(['rock \'n\' roll', 'rock & roll', 'R&B', 'drum & bass'])} night at ${pick(CITY)} ${pick(['Hall', 'Club', 'Arena'])}; tickets ${money()}`,
  ];
  const RECIPE = [
    () => `${pick(FOOD)} & ${pick(FOOD)}; cook ${int(2, 45)} min`,
    () => `${cap(pick(FOOD))}, ${pick(FOOD)} & ${pick(FOOD)} | ${pick(['serves', 'feeds'])} ${int(2, 8)} | ${int(10, 90)} min`,
    () => `Add ${pick(FOOD)}; stir; ${pick(['simmer', 'bake', 'fry', 'rest'])} ${int(5, 40)} min; ${pick(['season', 'top'])} with ${pick(FOOD)} & ${pick(FOOD)}`,
    () => `${int(1, 4)} cups ${pick(FOOD)}; ${int(1, 3)} tbsp ${pick(FOOD)}; ${pick(['a pinch of', 'some', 'more'])} ${pick(FOOD)}`,
    () => `salt & pepper; cook 5 min`, () => `Salt & pepper to taste; cook ${int(3, 10)} minutes per side`,
    () => `Set the table; ${pick(['light the candles', 'pour the wine', 'call everyone'])} & ${pick(['serve', 'enjoy', 'eat'])}`,
    () => `Mac & cheese; ${pick(['bake', 'broil'])} at ${pick([350, 375, 400, 180, 200])}${pick(['F', '°F', 'C', '°C', ''])} for ${int(10, 30)} min`,
  ];
  const LEGAL = [
    () => `The ${pick(['Buyer', 'Seller', 'Licensee', 'Tenant', 'Party'])} shall ${pick(['pay', 'notify', 'indemnify', 'deliver'])} ${pick(['within 30 days', 'in writing', 'promptly'])}; ${pick(['provided', 'except', 'unless'])} that ${pick(['such notice', 'the amount', 'the term'])} ${pick(['is disputed', 'exceeds $10,000', 'is extended'])}.`,
    () => `Terms & Conditions | Privacy Policy | ${pick(['Cookies', 'Imprint', 'Contact'])}`,
    () => `${pick(['Smith', 'Jones', 'Baker', pick(APOS_LAST)])} & ${pick(['Sons', 'Partners', 'Associates', 'Co.'])} LLP; ${pick(['Counsel for', 'Attorneys for'])} ${pick(['Plaintiff', 'Defendant'])}`,
    () => `Section ${int(1, 20)}.${int(1, 9)}: ${pick(['Term', 'Termination', 'Payment', 'Notices'])}; ${pick(['see also', 'cf.', 'subject to'])} Section ${int(1, 20)}`,
    () => `(a) ${pick(['fees', 'taxes', 'costs'])}; (b) ${pick(['interest', 'penalties', 'expenses'])}; and (c) ${pick(['any other amounts', 'attorneys\' fees', 'court costs'])}`,
  ];
  const LISTS = [
    () => picks(FOOD.concat(NOUN), int(2, 5)).join(pick(['; ', ';', ' | ', ', '])) + pick(['', '; more', '; etc.', ' & more']),
    () => `apples; pears; more`, () => `copy & paste`, () => `R&D`, () => `Q&A`, () => `Tom & Jerry`, () => `rock 'n' roll`, () => `AT&T`, () => `P&L`, () => `B&B`, () => `H&M`, () => `S&P 500`,
    () => `${pick(['Copy & paste', 'Cut & paste', 'Drag & drop', 'Search & replace', 'Find & replace', 'Sort & filter', 'Read & write'])} ${pick(['doesn\'t work', 'works fine', 'is broken', 'in the editor'])}`,
    () => `Find us at ${int(1, 999)} ${pick(STREET)} ${pick(STREET_T)}, ${pick(CITY)}; ${pick(['open', 'hours'])} ${int(7, 10)}-${int(4, 10)}${pick(['', ' daily', ' Mon-Sat'])}`,
    () => `${pick(['Who', 'What', 'When', 'Where'])}: ${pick(['team lunch', 'offsite', 'standup'])} | ${pick(['Time', 'When'])}: ${timeS()} | ${pick(['Host', 'Where'])}: ${pick(FIRST)}`,
    () => `${pick(['head', 'more', 'less', 'find', 'set', 'start', 'date', 'time', 'type', 'top', 'file'])} ${pick(['count', 'info', 'details', 'of the list', 'out'])}; ${pick(NOUN)}`,
    () => `${pick(['Kill time', 'Cat food', 'Set the table', 'Sleep 8 hours', 'Find us', 'Type your message', 'Sort by date', 'Head office', 'Tail end', 'Date night', 'Time off', 'Mail room', 'Host family', 'File cabinet', 'Start date', 'Call back'])}${pick(['', '!', '.', ' :)', ' - todo'])}`,
    () => `${pick(['Todo', 'TODO', 'Reminders', 'Shopping'])}: ${picks(['cat food', 'call mom', 'mail package', 'find keys', 'kill weeds', 'set alarm', 'sleep early', 'ping John', 'echo cleaning', 'date night', 'more milk', 'sort laundry', 'type report', 'file taxes', 'head to gym', 'start diet'], int(2, 4)).join(pick(['; ', ' | ', ' & ', ';']))}`,
  ];
  const LINE = [
    () => `Call ${int(200, 999)}-${int(100, 999)}-${int(1000, 9999)} after ${int(1, 6)}pm`, () => `At ${int(1, 11)}${pick(['pm', 'am', ':30'])} we ${pick(['leave', 'meet', 'eat'])}`,
    () => `Set ${int(2, 4)} alarms`, () => `Find ${int(2, 5)} more ${pick(NOUN)}s`, () => `Type 2 diabetes, ${pick(['diet controlled', 'on metformin'])}`,
    () => `Sleep ${int(6, 9)} hours`, () => `Kill ${int(5, 30)} minutes before the movie`, () => `Start ${timeS()}`, () => `Head ${int(2, 5)} blocks north`,
    () => `Cat ${pick([5, 6])} cable, ${int(2, 30)}m`, () => `More ${int(2, 9)} to come`, () => `Date ${dateS()}`, () => `Time ${timeS()}`,
    () => `Sort ${int(2, 9)} boxes by size`, () => `Copy ${int(2, 5)} of the contract`, () => `Move ${int(2, 9)} chairs to room ${int(100, 400)}`,
    () => `Echo ${pick(['Park', 'Lake', 'Valley'])} entrance`, () => `Touch ${int(2, 5)} ${pick(['screen', 'panel'])} is broken`,
    () => `Ping ${pick(FIRST)} re: invoice #${int(100, 999)}`, () => `Mail ${int(2, 4)} letters`, () => `File ${int(2, 4)} reports by Friday`,
    () => `Read ${pick(['chapter', 'pages'])} ${int(2, 40)}`, () => `Wait ${int(5, 20)} min then ${pick(['flip', 'stir', 'serve'])}`,
    () => `Exit ${int(10, 99)} off the highway`, () => `Host ${pick(FIRST)} & ${pick(FIRST)} on ${pick(['Friday', 'Sat'])}`,
    () => `${pick(FIRST)} & ${pick(['cat', 'dog', 'kids'])}`, () => `${cap(pick(NOUN))} & ${pick(['cat', 'more', 'less', 'file', 'mail', 'set'])}`,
    () => `Thanks, ${pick(FIRST)}`, () => `Hi team,`, () => `${cap(pick(ADJ))} ${pick(NOUN)}; ${pick(['ok', 'done', 'todo'])}`,
    () => `${int(1, 9)}. ${pick(['Heat', 'Add', 'Stir', 'Set', 'Cut', 'Sort', 'Find', 'Wait'])} ${pick(FOOD)} ${pick(['for 5 min', 'until soft', '& serve', ''])}`.trim(),
  ];
  const textarea = () => Array.from({ length: int(2, 5) }, () => pick(LINE)()).join(pick(['\n', '\n', '\r\n', '\n\n']));
  const prose = () => {
    const k = int(0, 6);
    if (k === 6) return ['textarea', textarea()];
    const [sub, T] = [['review', REVIEW], ['ticket', TICKET], ['chat', CHAT], ['recipe', RECIPE], ['legal', LEGAL], ['list', LISTS]][k];
    return [sub, pick(T)()];
  };

  // ---------------- family: markdown
  const mdTable = () => {
    const cols = picks(ALLFIELDS, int(2, 5));
    const rows = Array.from({ length: int(1, 4) }, () => `| ${cols.map(cell).join(' | ')} |`);
    return [`| ${cols.join(' | ')} |`, `|${cols.map(() => pick(['---', ':---', '---:', ':-:'])).join('|')}|`, ...rows].join('\n');
  };
  const CODE_SNIPS = ['ls -la', 'npm install', 'git status', 'cat README.md', 'grep -r "TODO" src/', 'find . -name "*.js"', 'tail -f app.log', 'ps aux', 'kill -9 <pid>', 'sort -u names.txt', 'head -n 5 data.csv', 'echo $PATH', 'export NODE_ENV=production', 'cd ~/project && npm test', 'docker compose up -d', 'pip install requests', 'chmod +x run.sh', 'date -u', 'env | grep API', 'mkdir -p build', 'make && make install', 'curl -I https://example.com', 'python3 -m venv .venv', 'ssh user@host', 'tar -xzf archive.tar.gz'];
  const markdown = () => {
    const k = int(0, 7);
    if (k === 0 || k === 1) return ['table', mdTable()];
    if (k === 2) return ['inline-code', `${pick(['Run', 'Use', 'Try', 'Then run', 'You can run'])} \`${pick(CODE_SNIPS)}\` ${pick(['to see the files', 'in the project root', 'to check', 'first', 'and restart the server', 'to list everything'])}.`];
    if (k === 3) return ['inline-code', `${pick(['The', 'A'])} \`${pick(['id', 'type', 'sort', 'find', 'more', 'set', 'env', 'date', 'time', 'host', 'path', 'start'])}\` ${pick(['field', 'column', 'option', 'parameter', 'key'])} ${pick(['is required', 'defaults to null', 'accepts a string', 'is deprecated'])}; see \`${pick(['--help', 'docs/api.md', 'README', 'config.yml'])}\`.`];
    if (k === 4) return ['fenced-code', `${pick(['To install:', 'Steps:', 'Example:', 'Usage:'])}\n\n\`\`\`${pick(['bash', 'sh', 'shell', 'console', ''])}\n${picks(CODE_SNIPS, int(1, 3)).join('\n')}\n\`\`\`\n`];
    if (k === 5) return ['bullets', Array.from({ length: int(2, 5) }, () => `${pick(['- ', '* ', '1. '])}${pick([pick(NOUN) + ' & ' + pick(NOUN), 'Fix ' + pick(NOUN) + '; ' + pick(['done', 'wip']), cap(pick(UNIXISH)) + ' ' + pick(NOUN), '**' + pick(ADJ) + '** ' + pick(NOUN), '[ ] ' + pick(VERB) + ' ' + pick(NOUN)])}`).join('\n')];
    if (k === 6) return ['heading', `## ${cap(pick(NOUN))} & ${pick(NOUN)}\n\n${cap(pick(ADJ))} ${pick(NOUN)}; ${pick(['see below', 'more later', 'WIP'])} | _${pick(['draft', 'final'])}_`];
    return ['table', `| ${pick(UNIXISH)} | ${pick(UNIXISH)} |\n|---|---|\n| ${int(1, 99)} | ${pick(NOUN)} |`];
  };

  // ---------------- family: technical but benign
  const UA = [
    () => `Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/${int(100, 130)}.0.${int(1000, 6999)}.${int(10, 200)} Safari/537.36`,
    () => `Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_${int(1, 7)}) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/${int(14, 18)}.${int(0, 6)} Safari/605.1.15`,
    () => `Mozilla/5.0 (X11; Linux x86_64; rv:${int(100, 130)}.0) Gecko/20100101 Firefox/${int(100, 130)}.0`,
    () => `Mozilla/5.0 (iPhone; CPU iPhone OS ${int(15, 18)}_${int(0, 6)} like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148`,
    () => `${pick(['curl', 'Wget', 'python-requests', 'axios', 'okhttp', 'Go-http-client'])}/${int(1, 8)}.${int(0, 30)}.${int(0, 9)}`,
    () => `Dalvik/2.1.0 (Linux; U; Android ${int(10, 14)}; SM-G${int(900, 999)}F Build/${pick(['TP1A', 'UP1A', 'RP1A'])}.${int(200000, 240000)}.${int(1, 99)})`,
  ];
  const technical = () => {
    const k = int(0, 11);
    if (k === 0) return ['filename', `${pick(['report', 'invoice', 'IMG', 'scan', 'backup', 'notes', 'resume', 'cat', 'id', 'type', 'sort', 'more'])}${pick(['_', '-', ' ', ''])}${pick([dateS(), String(int(1, 9999)), pick(NOUN), 'final', 'v' + int(1, 9)])}${pick(['.pdf', '.docx', '.xlsx', '.csv', '.png', '.jpg', '.txt', '.zip', '.tar.gz', '.log'])}`];
    if (k === 1) return ['url', `https://${pick(['www.', 'shop.', 'app.', ''])}${pick(DOMWORD)}.${pick(TLD)}/${pick(['search', 'products', 'api/v1/items', 'docs', 'blog'])}?${pick(['q', 'sort', 'fields', 'filter', 'page', 'type'])}=${encodeURIComponent(pick([pick(NOUN) + ' ' + pick(NOUN), pick(FIELDS) + '|' + pick(UNIXISH), 'salt & pepper', pick(UNIXISH)]))}&${pick(['page', 'limit', 'lang', 'ref'])}=${int(1, 50)}`];
    if (k === 2) return ['email', chance(0.8) ? email() : `${fullname()} <${email()}>`];
    if (k === 3) return ['versions', pick([`node ${int(16, 22)}.${int(0, 20)}; npm ${int(8, 10)}`, `node ${int(16, 22)}.${int(0, 9)}.${int(0, 9)} | npm ${int(8, 10)}.${int(0, 9)}`, `python ${pick(['3.9', '3.10', '3.11', '3.12'])}; pip ${int(21, 24)}.${int(0, 3)}`, `php ${pick(['7.4', '8.1', '8.2', '8.3'])} & mysql ${pick(['5.7', '8.0'])}`, `java ${int(8, 21)}; maven 3.${int(6, 9)}`, `ruby ${pick(['2.7', '3.1', '3.3'])} | rails ${pick(['6.1', '7.0', '7.1'])}`, `OS: ${pick(['Ubuntu 22.04', 'Windows 11', 'macOS 14.2'])}; Browser: ${pick(['Chrome', 'Firefox', 'Edge'])} ${int(100, 130)}`])];
    if (k === 4) return ['user-agent', pick(UA)()];
    if (k === 5 || k === 6) { const q = pick(SHELL_Q).replace(/%c/g, () => pick(TECHTERM)); return ['shell-question', casing(q)]; }
    if (k === 7) return ['path', pick([`/home/${pick(FIRST).toLowerCase()}/${pick(['Documents', 'Downloads', 'projects'])}/${pick(NOUN)}.txt`, `C:\\Users\\${pick(FIRST)}\\Desktop\\${pick(NOUN)}.docx`, `~/Library/${pick(['Caches', 'Logs'])}/${pick(DOMWORD)}`, `src/${pick(['utils', 'lib', 'components'])}/${pick(UNIXISH)}.ts`])];
    if (k === 8) return ['semver', `${pick(DOMWORD)}@${int(0, 9)}.${int(0, 30)}.${int(0, 20)}${pick(['', '-beta.1', '-rc.2', ''])}`];
    if (k === 9) return ['query-string', `${pick(['q', 'search', 'term'])}=${pick(TECHTERM)}${pick(['+command', '+tutorial', '+vs+' + pick(TECHTERM), '+flags', ''])}&${pick(['sort', 'order'])}=${pick(['date', 'relevance', 'votes', 'id'])}`];
    if (k === 10) return ['mime-header', pick([`text/html; charset=utf-8`, `multipart/form-data; boundary=----WebKitFormBoundary${Math.floor(r() * 1e9).toString(36)}`, `en-US,en;q=0.9,${pick(['de', 'fr', 'es'])};q=0.${int(5, 8)}`, `max-age=${int(60, 86400)}; includeSubDomains`, `session=${Math.floor(r() * 1e12).toString(16)}; Path=/; HttpOnly; SameSite=Lax`])];
    return ['phone-misc', pick([`+1 (${int(200, 999)}) ${int(200, 999)}-${int(1000, 9999)}`, `ext. ${int(100, 999)}; fax ${int(200, 999)}-${int(1000, 9999)}`, `SKU ${int(1000, 9999)}-${pick(['A', 'B', 'XL'])} | qty ${int(1, 20)}`, `Ref: ${pick(['INV', 'PO', 'ORD'])}-${int(1000, 99999)}; due ${dateS()}`])];
  };

  // ---------------- family: names / addresses with quotes, SQL-ish prose
  const SQLISH = [
    () => `select a date`, () => `Select a date${pick(['', '...', ':'])}`, () => `${pick(['Please', ''])} select ${pick(['one', 'an option', 'your country', 'a size', 'all that apply'])} from the list`.trim(),
    () => `union station`, () => `${pick(['Meet at', 'Parking near', 'Drop-off at', 'Pickup from'])} Union Station${pick(['', '; ', ' & '])}${pick(['', 'gate ' + int(1, 20), 'platform ' + int(1, 12)])}`.trim(),
    () => `drop off; order by phone`, () => `${pick(['Drop off', 'Drop-off', 'Pick up'])} ${pick(['at the front desk', 'after 5', 'Monday'])}; order by ${pick(['phone', 'email', 'Friday', 'noon'])}`,
    () => `1 or 2 items`, () => `${int(1, 5)} or ${int(2, 9)} ${pick(['items', 'people', 'nights', 'days', 'bags'])}${pick(['', ' please', ', not sure yet'])}`,
    () => `either 'a' or 'b'`, () => `either '${pick(ADJ)}' or '${pick(ADJ)}'`, () => `sleep(less) nights`,
    () => `I'd like ${int(1, 4)} ${pick(NOUN)}s or ${int(1, 4)} ${pick(NOUN)}s, whichever is cheaper`,
    () => `${pick(['Where', 'When'])} can I ${pick(['drop', 'update', 'delete', 'insert', 'select'])} ${pick(['my card', 'my address', 'a photo', 'the item'])}?`,
    () => `Delete from cart${pick(['', '?', ' not working'])}`, () => `Update: ${pick(NOUN)} ${pick(['shipped', 'delayed', 'delivered'])}; ${pick(['thanks', 'sorry'])}`,
    () => `Order by ${pick(['price', 'date', 'name', 'rating'])}, ${pick(['low to high', 'newest first', 'A-Z'])}`,
    () => `${pick(FIRST)}'s ${pick(NOUN)} or ${pick(FIRST)}'s ${pick(NOUN)}`,
    () => `it's ${pick(ADJ)} or it isn't`, () => `'${pick(ADJ)}' and '${pick(ADJ)}'`, () => `rock 'n' roll or jazz`,
    () => `Table for ${int(2, 12)}; ${pick(['window seat', 'no nuts', 'high chair'])} & ${pick(['birthday', 'anniversary', 'quiet corner'])}`,
    () => `${pick(['Group', 'Order'])} #${int(1, 99)} by ${fullname()}; having ${pick(['fun', 'issues', 'a party'])}`,
    () => `sleep ${int(1, 12)} hours or ${int(1, 12)}? I'm ${pick(['tired', 'confused'])}`,
    () => `Select all | Delete selected | Move to folder`,
    () => `${pick(['Exec', 'Executive'])} summary; ${pick(['drop', 'waitfor'])} ${pick(['the meeting', 'the file', 'your reply'])}`,
    () => `Love it or hate it; ${pick(['no', 'some'])} middle ground`, () => `Now or never!`, () => `${pick(['Buy', 'Get'])} 1 or more & save ${int(5, 50)}%`,
    () => `${int(1, 9)}=${int(1, 9)} ${pick(['tickets', 'seats'])}? or ${int(1, 9)}`, () => `2 for 1 or 3 for 2 — which is better?`,
    () => `Limit ${int(1, 5)} per customer; ${pick(['while stocks last', 'no rainchecks'])}`,
    () => `Like new, ${pick(['barely used', 'no scratches'])}; ${pick(['pickup only', 'will ship'])}`,
    () => `Where's the ${pick(['union', 'table', 'index', 'view'])} ${pick(['hall', 'room', 'page'])}?`,
    () => `${pick(APOS_LAST)} or ${int(2, 9)} others`, () => `${pick(FIRST)}'s order #${int(100, 9999)} and ${int(2, 5)} more items`,
    () => `Height: ${int(4, 6)}' ${int(0, 11)}" and ${int(100, 250)} lbs`, () => `I'm ${int(5, 6)}' ${int(0, 11)}" or so`,
    () => `${pick(FIRST)}'s share = ${money()}`, () => `${pick(FIRST)}'s total = ${int(2, 90)} ${pick(['hours', 'items', 'points'])}`,
    () => `'${cap(pick(ADJ))}' or '${cap(pick(ADJ))}' — pick one`, () => `${pick(FIRST)}'s having a party; RSVP by ${dateS()}`,
    () => `${pick(['Macy', 'Kohl', 'Trader Joe', 'Denny', pick(FIRST)])}'s -- ${int(10, 70)}% off ${pick(['today', 'this weekend', 'everything'])}`,
    () => `${pick(['She', 'He', 'It', 'There'])}'s like ${int(2, 10)} ${pick(['years older', 'blocks away', 'left', 'minutes late'])}`,
    () => `I'm like ${int(60, 99)}% sure ${pick(['it shipped', 'that is right', 'we met'])}`, () => `You're like ${int(2, 5)} hours late!`,
    () => `${pick(FIRST)}'s into ${pick(['hiking', 'jazz', 'cooking', 'chess'])} & ${pick(['biking', 'travel', 'movies'])}`,
    () => `It's limit ${int(1, 4)} per ${pick(['customer', 'household', 'order'])}`, () => `${pick(FIRST)}'s where ${pick(['we', 'they'])} met, ${pick(['2', '5', '10'])} years ago`,
    () => `Sleep (${int(6, 8)}-${int(8, 10)}h) ${pick(['recommended', 'matters', 'is key'])}`, () => `Benchmark (${int(2019, 2025)}) results for ${pick(['Q1', 'Q2', 'Q3', 'Q4'])}`,
    () => `Mom's 1st order; ${int(2, 3)} or ${int(3, 5)} more to come`, () => `Item 'A' and 'B' = same price?`,
    () => `${pick(FIRST)}'s group (${int(3, 12)} people) or ${pick(FIRST)}'s`, () => `Kids' menu or adults'; ${int(2, 4)} and ${int(1, 3)}`,
    () => `'${cap(pick(NOUN))}' union ${pick(['meeting', 'dues', 'rep'])}: ${dateS()}`, () => `Select 'Other' and describe below`,
    () => `Chose '${pick(['None', 'Other', 'N/A'])}' and 1 = yes, 0 = no`, () => `Rate 1-5 (5 = best) or 'N/A'`,
  ];
  const names = () => {
    const k = int(0, 9);
    if (k === 0 || k === 1) return ['person', pick([`${pick(FIRST)} ${pick(APOS_LAST)}`, `${pick(APOS_LAST)}, ${pick(FIRST)}`, `${pick(FIRST)} "${pick(['Mac', 'Bud', 'Red', 'Doc', 'Ace', 'Sly'])}" ${pick(LAST)}`, `${pick(FIRST)} ${pick(FIRST)}-${pick(APOS_LAST)}`])];
    if (k === 2) return ['business', pick([`The '${cap(pick(ADJ))}' ${pick(['Cafe', 'Diner', 'Bakery', 'Pub'])}`, `${pick(APOS_LAST)} & ${pick(['Sons', 'Daughters', 'Co', 'Partners'])}`, `${pick(FIRST)}'s ${pick(['Bar & Grill', 'Fish & Chips', 'Bed & Breakfast', 'Auto Repair', 'Pizza'])}`, `"The ${cap(pick(ADJ))} ${cap(pick(NOUN))}" ${pick(['Ltd', 'Inc.', 'LLC'])}`, `${pick(LAST)} & ${pick(LAST)}; ${pick(['Est.', 'since'])} ${int(1890, 2015)}`])];
    if (k === 3) return ['address', `${int(1, 9999)} ${pick(STREET)} ${pick(STREET_T)}${pick(['', ', Apt ' + int(1, 40), ' #' + int(1, 400), '; Unit ' + int(1, 20)])}, ${pick(CITY)}${pick(['', ' ' + int(10000, 99999)])}`];
    if (k === 4) return ['address', `c/o ${fullname()}; ${int(1, 999)} ${pick(STREET)} ${pick(STREET_T)} | ${pick(CITY)}`];
    if (k === 5) return ['quote', pick([`"${cap(pick(ADJ))} ${pick(NOUN)}," ${pick(['said', 'wrote'])} ${fullname()}`, `She said 'it's ${pick(ADJ)}' & left`, `He's "${pick(['the one', 'the best', 'ok'])}" — or so ${pick(['he', 'they'])} say`, `It's ${fullname()}'s ${pick(NOUN)}; don't ${pick(['touch', 'move', 'eat'])} it`])];
    return ['sqlish-prose', pick(SQLISH)()];
  };

  const FAM = [['fields', fields, 6], ['inventory', inventory, 5], ['prose', prose, 8], ['markdown', markdown, 3], ['technical', technical, 5], ['names', names, 5]];
  const total = FAM.reduce((s, f) => s + f[2], 0);
  let guard = 0;
  while (out.length < target && guard++ < target * 20) {
    let x = r() * total, f;
    for (f of FAM) { if ((x -= f[2]) < 0) break; }
    const [sub, value] = f[1]();
    add(f[0], sub, value);
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const args = process.argv.slice(2);
  const o = args.indexOf('--out');
  const out = o >= 0 ? args[o + 1] : null;
  const seed = Number(args.find((a, i) => !a.startsWith('--') && (o < 0 || i !== o + 1)) ?? 1337);
  const vals = generate(seed);
  const c = {};
  for (const v of vals) c[v.family + '/' + v.sub] = (c[v.family + '/' + v.sub] ?? 0) + 1;
  if (out) {
    const fs = await import('node:fs');
    fs.writeFileSync(out, vals.map((v) => JSON.stringify(v)).join('\n') + '\n');
    console.log(vals.length, 'values written to', out);
  } else console.log(vals.length, 'values (seed', seed + ')');
  for (const [k, n] of Object.entries(c).sort()) console.log(String(n).padStart(6), k);
}
