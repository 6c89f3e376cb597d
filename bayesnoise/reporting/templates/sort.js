// Sort a table by the clicked column: numbers by their data-v attribute, text otherwise.
document.querySelectorAll('table.sortable').forEach(function(table){
  table.querySelectorAll('th').forEach(function(th, col){
    th.addEventListener('click', function(){
      var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
      var dir = th.dataset.dir === 'asc' ? -1 : 1; th.dataset.dir = dir > 0 ? 'asc' : 'desc';
      rows.sort(function(a, b){
        var x = a.cells[col], y = b.cells[col];
        var u = parseFloat(x.dataset.v), v = parseFloat(y.dataset.v);
        if (!isNaN(u) && !isNaN(v)) return dir * (u - v);
        return dir * x.textContent.localeCompare(y.textContent);
      });
      rows.forEach(function(r){ body.appendChild(r); });
    });
  });
});
