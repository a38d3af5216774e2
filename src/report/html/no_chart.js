// Stands in for Chart.js in builds without libjs-chart.js: the report says so instead of drawing.
window.Chart = undefined;
