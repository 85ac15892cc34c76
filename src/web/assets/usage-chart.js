/* global Chart, document */
// The overview's daily chart: metered requests per day of this month, REST and MCP stacked.
(function () {
  const canvas = document.getElementById('usage-chart');
  if (!canvas || typeof Chart === 'undefined') return;
  const days = JSON.parse(canvas.dataset.days || '[]');
  new Chart(canvas, {
    type: 'bar',
    data: {
      labels: days.map((d) => d.day.slice(5)),
      datasets: [
        { label: 'REST', data: days.map((d) => d.rest), backgroundColor: '#1f4fd1', borderRadius: 3 },
        { label: 'MCP', data: days.map((d) => d.mcp), backgroundColor: '#7aa2ff', borderRadius: 3 },
      ],
    },
    options: {
      maintainAspectRatio: false,
      animation: false,
      scales: {
        x: { stacked: true, grid: { display: false } },
        y: { stacked: true, beginAtZero: true, ticks: { precision: 0 } },
      },
      plugins: { legend: { position: 'bottom' } },
    },
  });
})();
