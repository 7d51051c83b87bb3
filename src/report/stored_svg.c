/* stored_svg.c - pgrtt report's charts: horizontal stacked bars in inline
 * SVG (stored_report.h).  Sizes are in CSS pixels at the page's 13 px text;
 * colours come from the page's style sheet (classes seg-*), so one chart
 * serves the light and the dark scheme. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "base/escape.h"
#include "stored_report.h"

#define BAR_W 440  /* the scale's length */
#define BAR_H 18
#define TITLE_H 28 /* the title's line */
#define AXIS_H 40  /* ticks, their numbers and the unit */
#define LEGEND_ROW 20

/* A step of 1, 2 or 5 times a power of ten giving about five ticks. */
static double tick_step(double max)
{
	double raw = max / 5, p = pow(10, floor(log10(raw)));
	double m = raw / p;
	return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p;
}

/* Text widths are guessed (no fonts here): 7 px per character of 13 px
 * system-ui, wide enough for digits and most labels. */
static int text_w(const char *s)
{
	int n = 0;
	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80; /* one per UTF-8 character */
	return 7 * n;
}

int svg_label_width(const struct svg_bar *bars, int n)
{
	int label_w = 120;
	for (int i = 0; i < n; i++) {
		int w = text_w(bars[i].label) + 16, ws = text_w(bars[i].sublabel) * 11 / 13 + 16;
		label_w = w > label_w ? w : label_w;
		label_w = ws > label_w ? ws : label_w;
	}
	return label_w > 420 ? 420 : label_w;
}

void svg_bar_chart(FILE *out, const char *title, const char *axis, const struct svg_bar *bars,
		   int n, double max, int label_w)
{
	bool present[SEG_N] = {0};
	for (int i = 0; i < n; i++)
		for (int k = 0; k < SEG_N && !bars[i].missing; k++)
			present[k] |= bars[i].seg[k] > 0;
	if (label_w <= 0)
		label_w = svg_label_width(bars, n);
	double step = tick_step(max > 0 ? max : 1), top = ceil((max > 0 ? max : 1) / step) * step;
	int row = 26; /* taller when a bar has a sublabel: all alike */
	for (int i = 0; i < n; i++)
		row = bars[i].sublabel[0] ? 36 : row;
	int nleg = 0;
	for (int k = 0; k < SEG_N; k++)
		nleg += present[k];
	int width = label_w + BAR_W + 70, per_line = (BAR_W + 60) / 150 > 0 ? (BAR_W + 60) / 150 : 1;
	int legend_h = ((nleg + per_line - 1) / per_line) * LEGEND_ROW + 6;
	int height = TITLE_H + n * row + AXIS_H + legend_h;
	fprintf(out, "<svg class=\"chart\" role=\"img\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\""
		     ">\n<title>",
		width, height, width, height);
	esc_html(out, title);
	fputs("</title>\n<text class=\"title\" x=\"0\" y=\"17\">", out);
	esc_html(out, title);
	fputs("</text>\n", out);
	int y0 = TITLE_H, y1 = TITLE_H + n * row;
	/* the grid first, under the bars */
	for (double t = 0; t <= top + step / 2; t += step) {
		double x = label_w + t / top * BAR_W;
		fprintf(out, "<line class=\"grid\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\"/>\n"
			     "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%g</text>\n",
			x, y0, x, y1 + 4, x, y1 + 17, t);
	}
	fprintf(out, "<text class=\"axis\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">", label_w + BAR_W / 2.0,
		y1 + 34);
	esc_html(out, axis);
	fputs("</text>\n", out);
	for (int i = 0; i < n; i++) {
		const struct svg_bar *b = &bars[i];
		int y = y0 + i * row;
		fprintf(out, "<text class=\"label\" x=\"%d\" y=\"%d\" text-anchor=\"end\">", label_w - 8,
			y + 14);
		esc_html(out, b->label);
		fputs("</text>\n", out);
		if (b->sublabel[0]) {
			fprintf(out, "<text class=\"sublabel\" x=\"%d\" y=\"%d\" text-anchor=\"end\">",
				label_w - 8, y + 29);
			esc_html(out, b->sublabel);
			fputs("</text>\n", out);
		}
		if (b->missing) {
			fprintf(out, "<text class=\"missing\" x=\"%d\" y=\"%d\">", label_w + 6, y + 14);
			esc_html(out, b->missing);
			fputs("</text>\n", out);
			continue;
		}
		double x = label_w, sum = 0;
		for (int k = 0; k < SEG_N; k++) {
			double w = b->seg[k] / top * BAR_W;
			sum += b->seg[k];
			if (w <= 0)
				continue;
			fprintf(out, "<rect class=\"bar seg-%s\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\">"
				     "<title>%s: %.2f</title></rect>\n",
				seg_key[k], x, y + 2, w, BAR_H, seg_name[k], b->seg[k]);
			x += w;
		}
		fprintf(out, "<text class=\"value\" x=\"%.1f\" y=\"%d\">%.2f</text>\n", x + 6, y + 15, sum);
	}
	/* the legend: the segments this chart shows */
	int k2 = 0;
	for (int k = 0; k < SEG_N; k++) {
		if (!present[k])
			continue;
		int lx = label_w + (k2 % per_line) * 150, ly = y1 + AXIS_H + (k2 / per_line) * LEGEND_ROW;
		fprintf(out, "<rect class=\"swatch seg-%s\" x=\"%d\" y=\"%d\" width=\"12\" height=\"12\"/>"
			     "<text class=\"legend\" x=\"%d\" y=\"%d\">%s</text>\n",
			seg_key[k], lx, ly + 2, lx + 17, ly + 13, seg_name[k]);
		k2++;
	}
	fputs("</svg>\n", out);
}
