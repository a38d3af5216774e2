// Draws the charts of an ironbench HTML report with Chart.js from the JSON embedded in the
// page (id "ironbench-data"). Text from results only ever reaches the page through
// textContent and Chart.js labels (drawn on a canvas), never as HTML.
(function () {
  'use strict';
  const data = JSON.parse(document.getElementById('ironbench-data').textContent);
  const area = document.getElementById('charts');
  if (typeof Chart === 'undefined') {
    const missing = document.createElement('p');
    missing.textContent = 'This ironbench was built without Chart.js (libjs-chart.js): no charts.';
    area.append(missing);
    document.body.dataset.charts = 'unavailable';
    return;
  }
  const palette = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f',
                   '#bcbd22', '#17becf'];
  const dashes = [[], [6, 4], [2, 3], [10, 3, 2, 3]];
  Chart.defaults.animation = false;
  Chart.defaults.responsive = false;
  Chart.defaults.font.size = 12;

  const several = data.sides.length > 1;
  const seriesLabel = (sideIndex, text) => (several ? data.sides[sideIndex].label + ': ' : '') + text;
  let colorIndex = 0;
  const nextColor = () => palette[colorIndex++ % palette.length];

  function addChart(title, subtitle, config) {
    const figure = document.createElement('figure');
    const caption = document.createElement('figcaption');
    caption.textContent = title;
    const note = document.createElement('div');
    note.className = 'note';
    note.textContent = subtitle;
    const canvas = document.createElement('canvas');
    canvas.width = 960;
    canvas.height = 440;
    figure.append(caption, note, canvas);
    area.append(figure);
    config.options = Object.assign({ plugins: { legend: { position: 'right' } } }, config.options || {});
    new Chart(canvas.getContext('2d'), config);
    return figure;
  }

  // Every valid case of a benchmark, on every side: {side, c}.
  function casesOf(benchmark) {
    const found = [];
    data.sides.forEach((side, sideIndex) => side.cases.forEach((c) => {
      if (c.benchmark === benchmark && c.status === 'valid') found.push({ side: sideIndex, c: c });
    }));
    return found;
  }

  function groupBy(items, keyOf) {
    const groups = new Map();
    for (const item of items) {
      const key = keyOf(item);
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push(item);
    }
    return groups;
  }

  const axisTitle = (text) => ({ display: true, text: text });
  // A log axis ticked at the values swept, each labelled (a concurrency sweep's 1, 2, 4, 8, 16):
  // Chart.js's own log ticks label only 1, 2 and 5 of each decade.
  const sweptAxis = (text, values) => {
    const ticks = [...new Set(values.filter((v) => typeof v === 'number' && v > 0))].sort((a, b) => a - b);
    return {
      type: 'logarithmic', title: axisTitle(text),
      afterBuildTicks: (axis) => { if (ticks.length > 0) axis.ticks = ticks.map((v) => ({ value: v })); },
      ticks: { callback: (value) => String(Number(value)) },
    };
  };
  const unitOf = (found, metric) => {
    for (const f of found) if (f.c.units[metric]) return f.c.units[metric];
    return '';
  };

  // y against a numeric parameter on a log axis, one line per group; the best device wins.
  function lineChart(title, subtitle, found, xParam, metric, groupKey, xTitle) {
    const groups = groupBy(found.filter((f) => typeof f.c.params[xParam] === 'number' && metric in f.c.metrics),
                           (f) => f.side + '\u0000' + groupKey(f.c));
    if (groups.size === 0) return;
    const datasets = [];
    for (const [key, items] of groups) {
      const best = new Map();
      for (const f of items) {
        const x = f.c.params[xParam];
        best.set(x, Math.max(best.get(x) || 0, f.c.metrics[metric]));
      }
      const points = [...best.entries()].sort((a, b) => a[0] - b[0]).map(([x, y]) => ({ x: x, y: y }));
      const side = items[0].side;
      const color = nextColor();
      datasets.push({ label: seriesLabel(side, key.split('\u0000')[1]), data: points, borderColor: color,
                      backgroundColor: color, borderDash: dashes[side % dashes.length], showLine: true });
    }
    addChart(title, subtitle, {
      type: 'scatter',
      data: { datasets: datasets },
      options: { scales: { x: sweptAxis(xTitle, datasets.flatMap((d) => d.data.map((p) => p.x))),
                           y: { beginAtZero: true, title: axisTitle(metric + ' (' + unitOf(found, metric) + ')') } } },
    });
  }

  // One bar per case label, one dataset per side and group.
  function barChart(title, subtitle, found, metric, labelOf, groupOf) {
    const usable = found.filter((f) => metric in f.c.metrics);
    if (usable.length === 0) return;
    const labels = [...new Set(usable.map((f) => labelOf(f.c)))];
    const groups = groupBy(usable, (f) => f.side + '\u0000' + groupOf(f.c));
    const datasets = [];
    for (const [key, items] of groups) {
      const values = new Map();
      for (const f of items) {
        const label = labelOf(f.c);
        values.set(label, Math.max(values.get(label) || 0, f.c.metrics[metric]));
      }
      const color = nextColor();
      const name = key.split('\u0000')[1];
      datasets.push({ label: seriesLabel(items[0].side, name || metric), backgroundColor: color,
                      data: labels.map((l) => (values.has(l) ? values.get(l) : null)) });
    }
    addChart(title, subtitle, {
      type: 'bar',
      data: { labels: labels, datasets: datasets },
      options: { scales: { y: { beginAtZero: true, title: axisTitle(metric + ' (' + unitOf(usable, metric) + ')') } } },
    });
  }

  const join = (c, names) => names.filter((n) => n in c.params).map((n) => c.params[n]).join(' ');
  const otherParams = (c, skip) => Object.keys(c.params).filter((n) => !skip.includes(n))
    .map((n) => n + '=' + c.params[n]).join(' ');

  const drawn = new Set();

  function streamCharts() {
    const found = casesOf('stream');
    if (found.length === 0) return;
    drawn.add('stream');
    lineChart('STREAM bandwidth vs array size', 'GB/s (1e9 B/s) per kernel; best device at each size',
              found, 'size', 'bandwidth', (c) => join(c, ['kernel', 'dtype']), 'bytes per array');
  }

  function gemmCharts() {
    const found = casesOf('gemm');
    if (found.length === 0) return;
    drawn.add('gemm');
    barChart('GEMM throughput per shape and dtype', 'TFLOP/s (median time); best device and provider',
             found, 'tflops', (c) => [c.params.M, c.params.N, c.params.K].join('x'),
             (c) => join(c, ['dtype', 'provider']));
  }

  function copyCharts() {
    for (const benchmark of ['copy', 'p2p']) {
      const found = casesOf(benchmark);
      if (found.length === 0) continue;
      drawn.add(benchmark);
      barChart(benchmark === 'copy' ? 'Host-device copy bandwidth' : 'Peer-to-peer bandwidth', 'GB/s per path',
               found, 'bandwidth', (c) => otherParams(c, ['size']), () => '');
    }
  }

  function collectiveCharts() {
    const found = casesOf('collectives');
    if (found.length === 0) return;
    drawn.add('collectives');
    lineChart('Collective bus bandwidth vs message size', 'busbw (nccl-tests definition), GB/s',
              found, 'size', 'busbw', (c) => join(c, ['collective', 'placement', 'dtype']), 'message size (bytes)');
  }

  function serveCharts() {
    const found = casesOf('serve').filter((f) => 'output_throughput' in f.c.metrics);
    if (found.length === 0) return;
    drawn.add('serve');
    const byRate = found.every((f) => !f.c.params.max_concurrency) && found.some((f) => f.c.params.request_rate !== 'inf');
    const xOf = (c) => (byRate ? Number(c.params.request_rate) : Number(c.params.max_concurrency));
    const xTitle = byRate ? 'request rate (requests/s)' : 'max concurrency';
    const sides = groupBy(found.filter((f) => isFinite(xOf(f.c)) && xOf(f.c) > 0), (f) => f.side);
    const throughput = [], tradeoff = [], latency = [];
    for (const [side, items] of sides) {
      items.sort((a, b) => xOf(a.c) - xOf(b.c));
      const color = nextColor();
      throughput.push({ label: seriesLabel(side, 'output tokens/s'), borderColor: color, backgroundColor: color,
                        showLine: true, data: items.map((f) => ({ x: xOf(f.c), y: f.c.metrics.output_throughput })) });
      const saturated = items.filter((f) => f.c.saturation);
      if (saturated.length > 0) {
        throughput.push({ label: seriesLabel(side, 'saturated (the sweep ends)'), borderColor: '#000',
                          backgroundColor: '#000', pointStyle: 'triangle', pointRadius: 9,
                          data: saturated.map((f) => ({ x: xOf(f.c), y: f.c.metrics.output_throughput })) });
      }
      const itl = items.filter((f) => 'median_itl_ms' in f.c.metrics);
      tradeoff.push({ label: seriesLabel(side, 'throughput vs median ITL'), borderColor: color, backgroundColor: color,
                      showLine: true, data: itl.map((f) => ({ x: f.c.metrics.median_itl_ms, y: f.c.metrics.output_throughput })) });
      ['median_ttft_ms', 'p99_ttft_ms', 'median_itl_ms', 'p99_itl_ms'].forEach((metric, i) => {
        const points = items.filter((f) => metric in f.c.metrics).map((f) => ({ x: xOf(f.c), y: f.c.metrics[metric] }));
        if (points.length === 0) return;
        const c = nextColor();
        latency.push({ label: seriesLabel(side, metric), borderColor: c, backgroundColor: c, showLine: true,
                       borderDash: dashes[i % dashes.length], data: points });
      });
    }
    const logX = sweptAxis(xTitle, [...sides.values()].flat().map((f) => xOf(f.c)));
    addChart('Serving throughput vs ' + xTitle, 'output tokens/s as vLLM bench serve defines it', {
      type: 'scatter', data: { datasets: throughput },
      options: { scales: { x: logX, y: { beginAtZero: true, title: axisTitle('output tokens/s') } } } });
    if (tradeoff.some((d) => d.data.length > 0)) {
      addChart('Serving throughput vs latency', 'each point is one ' + xTitle + ' of the sweep', {
        type: 'scatter', data: { datasets: tradeoff },
        options: { scales: { x: { title: axisTitle('median inter-token latency (ms)') },
                             y: { beginAtZero: true, title: axisTitle('output tokens/s') } } } });
    }
    if (latency.length > 0) {
      addChart('TTFT and ITL percentiles', 'milliseconds; solid median, dashed p99', {
        type: 'scatter', data: { datasets: latency },
        options: { scales: { x: logX, y: { beginAtZero: true, title: axisTitle('ms') } } } });
    }
  }

  // Throughput (per GPU) against interactivity, InferenceMAX's curve: each side's points and
  // their Pareto frontier (computed by ironbench, embedded as data.interactivity), every side on
  // one chart so that two nodes' curves overlay.
  function interactivityCharts() {
    const curve = data.interactivity;
    if (!curve) return;
    const perGpu = curve.throughput === 'output_throughput_per_gpu';
    const datasets = [];
    curve.sides.forEach((side, sideIndex) => {
      if (side.points.length === 0) return;
      const color = nextColor();
      const xy = (points) => points.map((p) => ({ x: p.x, y: p.y }));
      datasets.push({ label: seriesLabel(sideIndex, 'points'), data: xy(side.points), borderColor: color,
                      backgroundColor: color, showLine: false, pointRadius: 3 });
      datasets.push({ label: seriesLabel(sideIndex, 'Pareto frontier'), data: xy(side.frontier), borderColor: color,
                      backgroundColor: color, showLine: true, pointRadius: 6, pointStyle: 'rectRot',
                      borderDash: dashes[sideIndex % dashes.length] });
    });
    if (datasets.length === 0) return;
    const yTitle = perGpu ? 'output tokens/s per GPU' : 'output tokens/s (whole endpoint: no --gpus)';
    const figure = addChart('Throughput ' + (perGpu ? 'per GPU ' : '') + 'vs interactivity',
                            'each point is one load point; interactivity = 1000 / median TPOT; the line is the ' +
                            'Pareto frontier', {
      type: 'scatter', data: { datasets: datasets },
      options: { scales: { x: { beginAtZero: true, title: axisTitle('interactivity (tokens/s per user)') },
                           y: { beginAtZero: true, title: axisTitle(yTitle) } } } });
    figure.dataset.chart = 'interactivity';
    figure.dataset.datasets = datasets.map((d) => d.label + '=' + d.data.length).join('|');
  }

  function trainingCharts() {
    const found = data.sides.flatMap((side, i) => side.cases.filter((c) => c.benchmark.startsWith('train') ||
      c.benchmark === 'ddp_scaling').map((c) => ({ side: i, c: c }))).filter((f) => f.c.status === 'valid');
    for (const metric of ['tokens_per_s', 'samples_per_s']) {
      const usable = found.filter((f) => metric in f.c.metrics);
      if (usable.length === 0) continue;
      usable.forEach((f) => drawn.add(f.c.benchmark));
      barChart('Training ' + metric.replace(/_/g, ' '), 'per configuration', usable, metric,
               (c) => c.benchmark + ' ' + otherParams(c, []), () => '');
      break;
    }
    // Loss curves (dstack's bare-metal vs VMs post compares them): warm-up steps included.
    const curves = found.filter((f) => Array.isArray(f.c.loss) && f.c.loss.length > 0);
    if (curves.length === 0) return;
    const datasets = curves.map((f) => {
      const color = nextColor();
      return { label: seriesLabel(f.side, f.c.benchmark + ' ' + otherParams(f.c, [])), borderColor: color,
               backgroundColor: color, borderDash: dashes[f.side % dashes.length], showLine: true, pointRadius: 0,
               data: f.c.loss.map((y, i) => ({ x: i + 1, y: y })).filter((p) => typeof p.y === 'number') };
    });
    addChart('Training loss', 'per optimizer step, warm-up included', {
      type: 'scatter', data: { datasets: datasets },
      options: { scales: { x: { title: axisTitle('step') }, y: { title: axisTitle('loss') } } } });
  }

  const preferred = ['tflops', 'busbw', 'bandwidth', 'bw_average', 'output_throughput', 'tokens_per_s',
                     'samples_per_s', 'throughput', 'latency_ms', 'time_us'];

  function otherCharts() {
    const benchmarks = new Set();
    data.sides.forEach((side) => side.cases.forEach((c) => benchmarks.add(c.benchmark)));
    for (const benchmark of benchmarks) {
      if (drawn.has(benchmark)) continue;
      const found = casesOf(benchmark);
      const metric = preferred.find((m) => found.some((f) => m in f.c.metrics)) ||
                     (found.length > 0 ? Object.keys(found[0].c.metrics)[0] : undefined);
      if (!metric) continue;
      barChart(benchmark, metric + ' per case', found, metric, (c) => otherParams(c, []), () => '');
    }
  }

  // Each side's serving points back to back over time: the client's output tokens/s beside what
  // the server's /metrics said (requests running and waiting, KV cache in use).
  function serveTimelineCharts() {
    const server = [['server_running_requests', 'server: requests running'],
                    ['server_waiting_requests', 'server: requests waiting'],
                    ['server_kv_cache_usage_percent', 'server: KV cache in use (%)']];
    data.sides.forEach((side, sideIndex) => {
      const points = side.cases.filter((c) => c.benchmark === 'serve' && c.timeline);
      if (points.length === 0) return;
      const client = [], byName = new Map(server.map(([name]) => [name, []]));
      const windows = [];
      let offset = 0;
      for (const c of points) {
        const t = c.timeline;
        let last = 0;
        const steady = t.client_steady_state_s;
        if (Array.isArray(steady) && steady.length === 2 && steady.every((v) => typeof v === 'number')) {
          windows.push([offset + steady[0], offset + steady[1]]);
        }
        (t.client_t_s || []).forEach((x, i) => {
          const y = (t.client_output_tokens_per_s || [])[i];
          if (typeof y === 'number') client.push({ x: offset + x, y: y });
          last = Math.max(last, x);
        });
        for (const [name] of server) {
          (t.server_t_s || []).forEach((x, i) => {
            const y = (t[name] || [])[i];
            if (typeof y === 'number' && x >= 0) byName.get(name).push({ x: offset + x, y: y });
          });
        }
        offset += last;
      }
      const color = nextColor();
      const datasets = [{ label: seriesLabel(sideIndex, 'client: output tokens/s'), data: client, borderColor: color,
                          backgroundColor: color, showLine: true, pointRadius: 0, yAxisID: 'y' }];
      if (windows.length > 0) {
        // Each point's steady-state window as a box over the client's throughput.
        const top = Math.max(1, ...client.map((p) => p.y));
        const box = [];
        for (const [start, end] of windows) {
          box.push({ x: start, y: 0 }, { x: start, y: top }, { x: end, y: top }, { x: end, y: 0 }, { x: end, y: null });
        }
        datasets.push({ label: seriesLabel(sideIndex, 'steady-state window'), data: box, borderColor: '#2ca02c',
                        backgroundColor: '#2ca02c', showLine: true, spanGaps: false, pointRadius: 0,
                        borderDash: [4, 4], yAxisID: 'y' });
      }
      server.forEach(([name, label], i) => {
        if (byName.get(name).length === 0) return;
        const c = nextColor();
        datasets.push({ label: seriesLabel(sideIndex, label), data: byName.get(name), borderColor: c,
                        backgroundColor: c, showLine: true, pointRadius: 0, borderDash: dashes[(i + 1) % dashes.length],
                        yAxisID: 'y1' });
      });
      const scales = { x: { title: axisTitle('seconds (the points back to back)') },
                       y: { beginAtZero: true, title: axisTitle('output tokens/s') } };
      if (datasets.some((d) => d.yAxisID === 'y1')) {
        scales.y1 = { position: 'right', beginAtZero: true, grid: { drawOnChartArea: false },
                      title: axisTitle('requests, %') };
      }
      addChart(seriesLabel(sideIndex, 'Serving timeline'),
               'client throughput per window beside the server\'s /metrics scrapes', {
        type: 'scatter', data: { datasets: datasets },
        options: { scales: scales, plugins: { legend: { position: 'bottom' } } } });
    });
  }

  function telemetryCharts() {
    const sensors = [['power_w', 'power (W)'], ['temperature_c', 'temperature (°C)'],
                     ['sm_clock_mhz', 'SM / GFX clock (MHz)'], ['utilization_percent', 'utilization (%)']];
    for (const [sensor, title] of sensors) {
      const datasets = [];
      data.sides.forEach((side, sideIndex) => {
        const byDevice = groupBy(side.telemetry, (t) => t.device);
        for (const [device, series] of byDevice) {
          let offset = 0;
          const points = [];
          for (const s of series) {
            let last = 0;
            for (const sample of s.samples) {
              if (typeof sample[sensor] === 'number') points.push({ x: offset + sample.t_s, y: sample[sensor] });
              last = Math.max(last, sample.t_s || 0);
            }
            offset += last;
          }
          if (points.length === 0) continue;
          const color = nextColor();
          datasets.push({ label: seriesLabel(sideIndex, device), data: points, borderColor: color,
                          backgroundColor: color, showLine: true, pointRadius: 0 });
        }
      });
      if (datasets.length === 0) continue;
      addChart('Telemetry: ' + title, 'sampled during the cases, back to back', {
        type: 'scatter', data: { datasets: datasets },
        options: { scales: { x: { title: axisTitle('seconds of measurement') }, y: { title: axisTitle(title) } } } });
    }
  }

  // An experiment's report: each benchmark's headline metric against each matrix variable, one
  // line per combination of the other variables (a bar per value when the values are not numbers).
  function matrixCharts() {
    const variables = data.matrix || [];
    if (variables.length === 0) return;
    const benchmarks = new Set();
    data.sides.forEach((side) => side.cases.forEach((c) => benchmarks.add(c.benchmark)));
    for (const benchmark of benchmarks) {
      const found = casesOf(benchmark);
      const metric = preferred.find((m) => found.some((f) => m in f.c.metrics)) ||
                     (found.length > 0 ? Object.keys(found[0].c.metrics)[0] : undefined);
      if (!metric) continue;
      for (const variable of variables) {
        const others = variables.filter((v) => v !== variable);
        const numeric = found.every((f) => typeof f.c.params[variable] === 'number');
        const title = benchmark + ': ' + metric + ' vs ' + variable;
        if (numeric) {
          lineChart(title, 'one line per value of the other matrix variables', found, variable, metric,
                    (c) => join(c, others) || benchmark, variable);
        } else {
          barChart(title, 'one bar per value', found, metric, (c) => String(c.params[variable]),
                   (c) => join(c, others));
        }
      }
    }
  }

  matrixCharts();
  streamCharts();
  gemmCharts();
  copyCharts();
  collectiveCharts();
  serveCharts();
  interactivityCharts();
  serveTimelineCharts();
  trainingCharts();
  otherCharts();
  telemetryCharts();

  // Say on the page whether every chart drew: canvases with painted pixels.
  let painted = 0, blank = 0;
  for (const canvas of document.querySelectorAll('#charts canvas')) {
    const pixels = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    let count = 0;
    for (let i = 3; i < pixels.length; i += 4) if (pixels[i] !== 0) count++;
    canvas.dataset.paintedPixels = String(count);
    if (count > 0) painted++; else blank++;
  }
  document.body.dataset.charts = String(painted + blank);
  document.body.dataset.chartsPainted = String(painted);
  document.body.dataset.chartsBlank = String(blank);
  if (painted + blank === 0) {
    const none = document.createElement('p');
    none.textContent = 'No case of these runs has a chart.';
    area.append(none);
  }
})();
