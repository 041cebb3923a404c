// The console's only script (CSP script-src 'self': no inline script anywhere). Without it every button still works;
// it adds the confirmation of destructive buttons and draws the deliveries chart with uPlot.
'use strict';

document.addEventListener('submit', (event) => {
  const form = event.target;
  const question = form instanceof HTMLFormElement ? form.dataset.confirm : undefined;
  if (question && !window.confirm(question)) event.preventDefault();
});

const COLOURS = { succeeded: '#1a7f37', failed: '#cf222e', pending: '#9a6700' };

/** The chart in the firm's zone: its axis says which, and its legend shows the counts of the hour pointed at. */
function draw(holder, hours, tz, zone) {
  const uPlot = window.uPlot;
  const inZone = (ts) => uPlot.tzDate(new Date(ts * 1000), tz);
  const hourOf = uPlot.fmtDate('{YYYY}-{MM}-{DD} {HH}:00');
  const xs = hours.map((h) => Date.parse(h.hour) / 1000);
  const series = Object.keys(COLOURS).map((status) => ({
    label: status,
    stroke: COLOURS[status],
    width: 2,
    points: { show: hours.length <= 48 },
  }));
  const data = [xs, ...Object.keys(COLOURS).map((status) => hours.map((h) => h[status]))];
  holder.replaceChildren();
  return new uPlot(
    {
      width: Math.max(320, holder.clientWidth || 800),
      height: 220,
      tzDate: inZone,
      legend: { live: true },
      series: [{ label: `Hour (${zone})`, value: (_u, ts) => (ts == null ? '—' : `${hourOf(inZone(ts))} ${zone}`) }, ...series],
      scales: { y: { range: (_u, _min, max) => [0, Math.max(1, max)] } },
      axes: [
        { label: `Hour, ${tz} (${zone})` },
        { label: 'deliveries', values: (_u, ticks) => ticks.map((t) => (Number.isInteger(t) ? String(t) : '')) },
      ],
    },
    data,
    holder,
  );
}

async function chart() {
  const holder = document.getElementById('deliveries-chart');
  if (!holder || !window.uPlot) return;
  const answer = await fetch(holder.dataset.src, { headers: { accept: 'application/json' }, credentials: 'same-origin' });
  if (!answer.ok) {
    holder.textContent = 'The chart could not be loaded.';
    return;
  }
  const body = await answer.json();
  const buttons = document.querySelectorAll('[data-range]');
  const show = (range) => {
    buttons.forEach((b) => b.setAttribute('aria-pressed', String(b.dataset.range === range)));
    draw(holder, body[range], body.timezone, body.zone);
    holder.dataset.drawn = range;
  };
  buttons.forEach((b) => b.addEventListener('click', () => show(b.dataset.range)));
  show('last_24_hours');
}

document.addEventListener('DOMContentLoaded', () => {
  chart().catch(() => {
    const holder = document.getElementById('deliveries-chart');
    if (holder) holder.textContent = 'The chart could not be drawn.';
  });
});
