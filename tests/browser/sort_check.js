// Opens an idlescope page in Debian's chromium (headless, through
// playwright-core) and checks what a reader does with it: the comparison
// table's cells carry units, a click on a header sorts the rows by that
// column's data-v, a second click reverses them, no console message (a CSP
// violation is one), and a screenshot.
// Usage: node sort_check.js PAGE.html TABLE_ID SCREENSHOT.png
// Prints one line per check; exits 1 on the first failed check.
"use strict";
const { chromium } = require("playwright-core");

const [page_path, table_id, shot] = process.argv.slice(2);
if (!page_path || !table_id || !shot) {
	console.error("usage: node sort_check.js PAGE.html TABLE_ID SCREENSHOT.png");
	process.exit(2);
}

const messages = [];

function fail(msg) {
	console.log("FAIL " + msg + (messages.length ? ` (console: ${messages.join(" | ")})` : ""));
	process.exitCode = 1;
	throw new Error(msg);
}

// The rows of the table: their name (first cell) and the data-v of column col.
async function rows(page, col) {
	return page.$$eval(`#${table_id} tbody tr`, (trs, c) =>
		trs.map((tr) => ({ name: tr.cells[0].textContent, v: tr.cells[c].getAttribute("data-v") })), col);
}

function numbers(rs) {
	return rs.filter((r) => r.v !== "null").map((r) => Number(r.v));
}

// Sorted by the numbers, the rows without one last.
function check_order(rs, dir, what) {
	const n = numbers(rs), firstnull = rs.findIndex((r) => r.v === "null");
	for (let i = 1; i < n.length; i++)
		if (dir * (n[i] - n[i - 1]) < 0)
			fail(`${what}: ${n[i - 1]} before ${n[i]}`);
	if (firstnull >= 0 && rs.slice(firstnull).some((r) => r.v !== "null"))
		fail(`${what}: a row without a value before one with`);
	console.log(`ok ${what}: ${n.length} values ${dir > 0 ? "ascending" : "descending"}`);
}

(async () => {
	const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", headless: true,
						args: ["--no-sandbox"] });
	try {
		const page = await browser.newPage({ viewport: { width: 1280, height: 1600 } });
		page.on("console", (m) => messages.push(`console ${m.type()}: ${m.text()}`));
		page.on("pageerror", (e) => messages.push(`page error: ${e.message}`));
		await page.goto("file://" + require("path").resolve(page_path), { waitUntil: "load" });

		// units: a time in ns/us/ms/s, a share in %, with the interval and mark
		const cells = await page.$$eval(`#${table_id} td[data-c]`, (tds) =>
			tds.map((td) => ({ c: td.getAttribute("data-c"), v: td.getAttribute("data-v"), t: td.textContent })));
		if (cells.length < 4)
			fail(`table ${table_id}: ${cells.length} cells`);
		const dur = "[+-]?[0-9.]+(ns|us|ms|s)|0", pct = "[+-]?[0-9.]+%";
		const re = { time: new RegExp(`^(${dur})( ±(${dur}))?\\*?$`),
			     share: new RegExp(`^(${pct})( ±(${pct}))?\\*?$`) };
		let checked = 0;
		for (const c of cells) {
			if (!re[c.c])
				continue;
			if (c.v === "null" ? !/^(n\.a\.|-)$/.test(c.t) : !re[c.c].test(c.t))
				fail(`cell ${c.c} "${c.t}" (data-v ${c.v}) has no unit`);
			checked++;
		}
		if (!checked)
			fail("no time or share cells");
		console.log(`ok units: ${checked} time and share cells`);

		// a column whose rows are not in ascending order yet
		const heads = await page.$$eval(`#${table_id} th[data-col]`, (ths) =>
			ths.map((th) => Number(th.getAttribute("data-col"))));
		let col = -1, before;
		for (const c of heads) {
			if (!c)
				continue;
			const rs = await rows(page, c), n = numbers(rs);
			if (new Set(n).size >= 2 && n.some((x, i) => i && x < n[i - 1])) {
				col = c;
				before = rs;
				break;
			}
		}
		if (col < 0)
			fail(`table ${table_id}: no column to sort`);
		const th = page.locator(`#${table_id} th[data-col="${col}"]`);
		await th.click();
		const up = await rows(page, col);
		check_order(up, 1, `click on column ${col}`);
		if (JSON.stringify(up) === JSON.stringify(before))
			fail("the rows did not move");
		if ((await th.getAttribute("aria-sort")) !== "ascending")
			fail("the header does not show the order");
		await th.click();
		const down = await rows(page, col);
		check_order(down, -1, `second click on column ${col}`);
		if (JSON.stringify(down.map((r) => r.name).sort()) !== JSON.stringify(before.map((r) => r.name).sort()))
			fail("rows lost or added by sorting");
		// the first column, text
		await page.locator(`#${table_id} th[data-col="0"]`).click();
		const names = (await rows(page, 0)).map((r) => r.name);
		for (let i = 1; i < names.length; i++)
			if (names[i - 1].localeCompare(names[i]) > 0)
				fail(`text sort: "${names[i - 1]}" before "${names[i]}"`);
		console.log(`ok text sort: ${names.length} rows`);
		await page.screenshot({ path: shot, fullPage: true });
		console.log(`ok screenshot ${shot}`);
		if (messages.length)
			fail("a console message");
		console.log("ok no console message");
	} catch (e) {
		if (!process.exitCode) {
			console.log(`FAIL ${e.message} ${messages.join(" | ")}`);
			process.exitCode = 1;
		}
	} finally {
		await browser.close();
	}
})();
