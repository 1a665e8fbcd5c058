// The three request scenarios of `npm run bench:http` (bench/http.mjs), shared with
// bench/http-phases.mjs so that both time the same requests.

// a 1 KB JSON body of ordinary form fields
export const benignBody = JSON.stringify({
  name: 'Jane Example', email: 'jane@example.com', company: 'Example Widgets Ltd', phone: '+44 20 7946 0000',
  address: { line1: '12 Market Street', city: 'Manchester', postcode: 'M1 1AE', country: 'United Kingdom' },
  order: { items: [{ sku: 'WID-2041', qty: 2, note: 'gift wrap please' }, { sku: 'WID-3310', qty: 1, note: '' }], coupon: 'SPRING24' },
  message: "Hi, I'd like to change the delivery date of my order to next Friday if possible. The parcel can be left with the neighbour at number 14. Thanks a lot for your help, and sorry for the short notice! Could you also confirm the invoice goes to the company address above, not my home one?",
  newsletter: true, referrer: 'search', tags: ['returning', 'b2b'], notes: 'Please call before 5pm on weekdays.',
});
export const attackBody = JSON.stringify({ ...JSON.parse(benignBody), message: "<img src=x onerror=alert(document.cookie)> ' UNION SELECT password FROM users--" });

export const SCENARIOS = [
  { name: 'GET with a query', method: 'GET', path: '/search?q=red+running+shoes&page=2&sort=price_asc&size=9' },
  { name: '1 KB JSON POST, benign', method: 'POST', path: '/api/items', body: benignBody },
  { name: '1 KB JSON POST, attack', method: 'POST', path: '/api/items', body: attackBody },
];
