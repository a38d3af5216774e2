// The HTML report's log axes are ticked at the values swept: a concurrency sweep 1, 2, 4, 8, 16
// labels each of them (Chart.js's own log ticks label 1, 2, 5, 10 and 20 only, so 4 went
// missing). Runs src/report/html/report.js under node with a stand-in page and a Chart that
// records its configurations.
//   node tests/report/swept_axis_test.js src/report/html/report.js
'use strict';
const fs = require('fs');
const assert = require('assert');

function charts(data) {
  const made = [];
  const element = () => ({ dataset: {}, append() {}, getContext: () => ({ getImageData: () => ({ data: [] }) }) });
  global.document = {
    body: { dataset: {} },
    getElementById: (id) => (id === 'ironbench-data' ? { textContent: JSON.stringify(data) } : element()),
    createElement: element,
    querySelectorAll: () => [],
  };
  global.Chart = function (context, config) { made.push(config); };
  global.Chart.defaults = { font: {} };
  new Function(fs.readFileSync(process.argv[2], 'utf8'))();
  return made;
}

// Chart.js 3's label of a log tick when the axis sets no callback (formatters.logarithmic).
function chartjsLabel(value) {
  const remain = value / Math.pow(10, Math.floor(Math.log10(value)));
  return remain === 1 || remain === 2 || remain === 5 ? String(value) : '';
}

// What the axis shows: the ticks after Chart.js's afterBuildTicks hook, labelled by its callback.
function labels(axis, generated) {
  const scale = { ticks: generated.map((v) => ({ value: v })) };
  if (axis.afterBuildTicks) axis.afterBuildTicks(scale);
  const label = axis.ticks && axis.ticks.callback ? axis.ticks.callback : chartjsLabel;
  return scale.ticks.map((t, i) => label(t.value, i, scale.ticks)).filter((l) => l !== '');
}

const sweep = [1, 2, 4, 8, 16].map((c) => ({
  benchmark: 'serve', status: 'valid', device: 'http://a', params: { max_concurrency: c, request_rate: 'inf' },
  metrics: { output_throughput: 100 * c, median_ttft_ms: 10 * c, median_itl_ms: 5 }, units: {},
}));
const made = charts({ sides: [{ label: 'A', cases: sweep, telemetry: [] }] });
const serve = made.filter((c) => c.options.scales.x.type === 'logarithmic');
assert.ok(serve.length >= 2, 'the serving charts have log x axes');
// Chart.js 3's log ticks for 1..16: 1 to 9, then 10 to 20; its own labels would be 1 2 5 10 20.
const generated = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 20];
for (const config of serve) assert.deepStrictEqual(labels(config.options.scales.x, generated), ['1', '2', '4', '8', '16']);

// A rate sweep's fractional rates are labelled as they are.
const rates = [0.5, 1.5, 3].map((r) => ({
  benchmark: 'serve', status: 'valid', device: 'http://a', params: { request_rate: r },
  metrics: { output_throughput: 100 * r }, units: {},
}));
const byRate = charts({ sides: [{ label: 'A', cases: rates, telemetry: [] }] }).filter((c) => c.options.scales.x.type === 'logarithmic');
assert.deepStrictEqual(labels(byRate[0].options.scales.x, [0.5, 0.6, 1, 2, 3]), ['0.5', '1.5', '3']);
console.log('swept log axes: ticks at the values swept, each labelled');
