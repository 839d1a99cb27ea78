// parse.mjs reads an iCalendar object on stdin with ical.js, an iCalendar parser independent of the service's
// (golang-ical), and prints what it understood as JSON: the calendar's properties and time zones, and each
// event with its times resolved through the object's own VTIMEZONEs (UTC instants; dates for all-day events).
// The Go tests (tests/events_ical_test.go) compare it with the events they created.
import ICAL from 'ical.js';

const chunks = [];
for await (const chunk of process.stdin) {
  chunks.push(chunk);
}
const root = new ICAL.Component(ICAL.parse(Buffer.concat(chunks).toString('utf8')));

// time is an ICAL.Time as the tests write it: "2027-06-12" for a date, else the UTC instant in RFC 3339.
const time = (t) => (t.isDate ? t.toString() : t.toJSDate().toISOString().replace('.000Z', 'Z'));

const text = (component, name) => component.getFirstPropertyValue(name) ?? '';

const events = root.getAllSubcomponents('vevent').map((vevent) => {
  const event = new ICAL.Event(vevent);
  const organizer = vevent.getFirstProperty('organizer');
  const geo = vevent.getFirstPropertyValue('geo');
  return {
    uid: event.uid,
    summary: event.summary ?? '',
    start: time(event.startDate),
    end: time(event.endDate),
    description: event.description ?? '',
    location: event.location ?? '',
    geo: geo ? `${geo[0]};${geo[1]}` : '',
    url: text(vevent, 'url'),
    status: text(vevent, 'status'),
    categories: vevent.getAllProperties('categories').flatMap((p) => p.getValues()),
    organizer_cn: organizer ? organizer.getParameter('cn') ?? '' : '',
    organizer: organizer ? organizer.getFirstValue() : '',
  };
});

const calendar = {};
for (const prop of root.getAllProperties()) {
  calendar[prop.name] = String(prop.getFirstValue());
}
const timezones = root.getAllSubcomponents('vtimezone').map((tz) => tz.getFirstPropertyValue('tzid'));

process.stdout.write(JSON.stringify({ calendar, timezones, events }));
