/* idlescope report: a click on a column header (or Enter on it) sorts its
 * table's rows by that column: numbers by the exact value in the cells'
 * data-v, text otherwise; a second click reverses. Cells without a value
 * (n.a., -) stay last. The page's only script, allowed by its hash. */
(function () {
	"use strict";
	function key(row, col) {
		var c = row.cells[col], v;
		if (!c)
			return null;
		v = c.getAttribute("data-v");
		if (v !== null)
			return v === "null" ? null : Number(v);
		return c.textContent;
	}
	function sort(th) {
		var table = th.closest("table"), body = table.tBodies[0];
		var col = Number(th.getAttribute("data-col"));
		var dir = th.getAttribute("aria-sort") === "ascending" ? -1 : 1;
		var rows = Array.prototype.slice.call(body.rows);
		rows.sort(function (a, b) {
			var x = key(a, col), y = key(b, col);
			if (x === null || y === null)
				return (x === null) - (y === null);
			if (typeof x === "number" && typeof y === "number")
				return dir * (x - y);
			return dir * String(x).localeCompare(String(y));
		});
		Array.prototype.forEach.call(table.querySelectorAll("th[aria-sort]"), function (h) {
			h.removeAttribute("aria-sort");
		});
		th.setAttribute("aria-sort", dir > 0 ? "ascending" : "descending");
		rows.forEach(function (r) { body.appendChild(r); });
	}
	function header(e) {
		return e.target.closest ? e.target.closest("table.sortable th[data-col]") : null;
	}
	document.addEventListener("click", function (e) {
		var th = header(e);
		if (th)
			sort(th);
	});
	document.addEventListener("keydown", function (e) {
		var th = (e.key === "Enter" || e.key === " ") && header(e);
		if (th) {
			e.preventDefault();
			sort(th);
		}
	});
	Array.prototype.forEach.call(document.querySelectorAll("table.sortable th[data-col]"),
		function (th) { th.tabIndex = 0; });
})();
