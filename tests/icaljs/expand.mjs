// expand.mjs reads an iCalendar object on stdin with ical.js and prints, as JSON, the occurrences a calendar
// application shows: each recurring VEVENT expanded by its RRULE, RDATE and EXDATE up to the date given as the
// first argument, with the VEVENTs that carry a RECURRENCE-ID in place of the occurrences they replace; other
// VEVENTs as they are. Times are UTC instants in RFC 3339 (dates for all-day events), in order of start.
import ICAL from 'ical.js';

const chunks = [];
for await (const chunk of process.stdin) {
  chunks.push(chunk);
}
const root = new ICAL.Component(ICAL.parse(Buffer.concat(chunks).toString('utf8')));
const until = ICAL.Time.fromDateTimeString(process.argv[2] + 'T00:00:00');

const time = (t) => (t.isDate ? t.toString() : t.toJSDate().toISOString().replace('.000Z', 'Z'));

const masters = new Map();
const exceptions = [];
for (const vevent of root.getAllSubcomponents('vevent')) {
  if (vevent.hasProperty('recurrence-id')) {
    exceptions.push(vevent);
  } else {
    masters.set(vevent.getFirstPropertyValue('uid'), new ICAL.Event(vevent));
  }
}
for (const vevent of exceptions) {
  const master = masters.get(vevent.getFirstPropertyValue('uid'));
  if (master) {
    master.relateException(vevent);
  }
}

const occurrences = [];
for (const [uid, master] of masters) {
  if (!master.isRecurring()) {
    occurrences.push({ uid, recurrence_id: '', start: time(master.startDate), end: time(master.endDate), summary: master.summary ?? '' });
    continue;
  }
  const iterator = master.iterator();
  for (let next = iterator.next(), n = 0; next && next.compare(until) < 0 && n < 10000; next = iterator.next(), n++) {
    const details = master.getOccurrenceDetails(next);
    occurrences.push({
      uid,
      recurrence_id: time(details.recurrenceId),
      start: time(details.startDate),
      end: time(details.endDate),
      summary: details.item.summary ?? '',
    });
  }
}
occurrences.sort((a, b) => (a.start < b.start ? -1 : a.start > b.start ? 1 : 0));
process.stdout.write(JSON.stringify(occurrences));
