//! What every chart of the page draws, in one vocabulary: a linear scale with round ticks, an
//! axis of them, a point with its interval, and the colour of a heatmap's cell.

use std::fmt::Write;

/// Values to x: a domain widened to round ticks, drawn from `left` to `right`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) struct Scale {
    lo: f64,
    hi: f64,
    step: f64,
    left: f64,
    right: f64,
}

impl Scale {
    /// A scale over `values` (and zero, with `zero`), from x = `left` to `right`.
    pub(super) fn over(
        values: impl IntoIterator<Item = f64>,
        zero: bool,
        left: f64,
        right: f64,
    ) -> Scale {
        let (mut lo, mut hi) = values
            .into_iter()
            .filter(|v| v.is_finite())
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
                (lo.min(v), hi.max(v))
            });
        if zero || !lo.is_finite() {
            lo = lo.min(0.0);
            hi = hi.max(0.0);
        }
        if hi - lo < 1e-9 {
            (lo, hi) = (lo - 0.01, hi + 0.01);
        }
        let step = nice((hi - lo) / 4.0);
        Scale {
            lo: (lo / step - 1e-9).floor() * step,
            hi: (hi / step + 1e-9).ceil() * step,
            step,
            left,
            right,
        }
    }

    /// Where `value` is drawn.
    pub(super) fn x(&self, value: f64) -> f64 {
        self.left + (value - self.lo) / (self.hi - self.lo) * (self.right - self.left)
    }

    /// The round values an axis marks, from the domain's start to its end.
    pub(super) fn ticks(&self) -> Vec<f64> {
        let (first, last) = (
            (self.lo / self.step).round() as i64,
            (self.hi / self.step).round() as i64,
        );
        // Multiples of the step, rounded as written (`0.05`, not `0.05000000000000002`).
        (first..=last)
            .map(|k| (k as f64 * self.step * 1e12).round() / 1e12 + 0.0)
            .collect()
    }

    /// A tick's label: as many decimals as the step needs, a sign with `signed`.
    pub(super) fn label(&self, value: f64, signed: bool) -> String {
        let decimals = (-self.step.log10().floor()).max(0.0) as usize;
        let text = format!("{:.*}", decimals, value.abs());
        if value == 0.0 {
            "0".to_owned()
        } else if value < 0.0 {
            format!("\u{2212}{text}")
        } else if signed {
            format!("+{text}")
        } else {
            text
        }
    }
}

/// The round step nearest `raw` from above: 1, 2 or 5 times a power of ten.
fn nice(raw: f64) -> f64 {
    let power = 10f64.powf(raw.log10().floor());
    let fraction = raw / power;
    let nice = if fraction <= 1.0 {
        1.0
    } else if fraction <= 2.0 {
        2.0
    } else if fraction <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * power
}

/// An axis: a faint line at each tick from `top` to `bottom` (a `tick` with its `data-value`),
/// its label beneath; zero, with `signed`, as a dashed line of its own (`zero`).
pub(super) fn axis(out: &mut String, scale: &Scale, top: f64, bottom: f64, signed: bool) {
    for t in scale.ticks() {
        let x = scale.x(t);
        let class = if signed && t == 0.0 {
            "tick zero"
        } else {
            "tick"
        };
        let _ = writeln!(
            out,
            "<line class=\"{class}\" data-value=\"{t}\" x1=\"{x:.2}\" y1=\"{top:.1}\" x2=\"{x:.2}\" y2=\"{bottom:.1}\"/><text class=\"tick-label\" x=\"{x:.2}\" y=\"{:.1}\" text-anchor=\"middle\">{}</text>",
            bottom + 14.0,
            scale.label(t, signed)
        );
    }
}

/// A point at `mid` with its interval from `low` to `high`, at height `y`.
pub(super) fn interval(out: &mut String, scale: &Scale, y: f64, low: f64, mid: f64, high: f64) {
    let _ = write!(
        out,
        "<line class=\"interval\" x1=\"{:.2}\" y1=\"{y:.1}\" x2=\"{:.2}\" y2=\"{y:.1}\"/><circle class=\"point\" cx=\"{:.2}\" cy=\"{y:.1}\" r=\"4.5\"/>",
        scale.x(low),
        scale.x(high),
        scale.x(mid)
    );
}

/// The steps of a heatmap's colour, worst to best: ColorBrewer's OrRd (seven classes) from dark
/// to light, so that lightness alone tells them apart (readers with a colour-vision deficiency
/// see the order) and the eye goes to the worst; each with the ink that reads on it (a contrast
/// of at least 4.5 to 1). The page's style sheet names them `.c0` to `.c6`.
pub(super) const STEPS: [(&str, &str); 7] = [
    ("#990000", "#ffffff"),
    ("#d7301f", "#ffffff"),
    ("#ef6548", "#1d232b"),
    ("#fc8d59", "#1d232b"),
    ("#fdbb84", "#1d232b"),
    ("#fdd49e", "#1d232b"),
    ("#fef0d9", "#1d232b"),
];

/// The style sheet's classes of [`STEPS`], printed in colour too (a browser leaves backgrounds
/// out of print unless told).
pub(super) fn step_classes() -> String {
    STEPS
        .iter()
        .enumerate()
        .map(|(i, (background, ink))| {
            format!(
                ".c{i} {{ background:{background}; color:{ink}; -webkit-print-color-adjust:exact; print-color-adjust:exact; }}\n"
            )
        })
        .collect()
}

/// The step of [`STEPS`] of `value` on a scale from `lo` (the first) to `hi` (the last).
pub(super) fn step_of(value: f64, lo: f64, hi: f64) -> usize {
    if hi - lo <= 0.0 {
        return STEPS.len() - 1;
    }
    let t = ((value - lo) / (hi - lo)).clamp(0.0, 1.0);
    ((t * STEPS.len() as f64).floor() as usize).min(STEPS.len() - 1)
}

/// Where a heatmap's colours start: the value a tenth of its values lie below, rounded down to
/// a tenth, below 1. The lower tenth shares the worst step, so that a few values far below the
/// others do not leave the rest in one colour.
pub(super) fn heat_floor(values: impl IntoIterator<Item = f64>) -> f64 {
    let mut values: Vec<f64> = values.into_iter().filter(|v| v.is_finite()).collect();
    values.sort_by(f64::total_cmp);
    let tenth = crate::evaluate::aggregate::percentile(&values, 0.1).unwrap_or(1.0);
    ((tenth * 10.0).floor() / 10.0).clamp(0.0, 0.9)
}

/// The key of a heatmap's colours from `lo` to 1: each step's swatch and where it starts (the
/// first, when `lo` is above 0, holds every value below the second).
pub(super) fn legend(lo: f64) -> String {
    let width = (1.0 - lo) / STEPS.len() as f64;
    let steps: String = (0..STEPS.len())
        .map(|i| {
            let from = lo + width * i as f64;
            match i {
                0 if lo > 0.0 => format!("<span class=\"c0\">&lt;{:.2}</span>", lo + width),
                _ if i + 1 == STEPS.len() => {
                    format!("<span class=\"c{i}\">{from:.2}\u{2013}1</span>")
                }
                _ => format!("<span class=\"c{i}\">{from:.2}</span>"),
            }
        })
        .collect();
    format!(
        "<p class=\"legend\"><span class=\"words\">worse</span>{steps}<span class=\"words\">better</span></p>"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_scale_has_round_ticks_around_its_values_and_zero() {
        let s = Scale::over([-0.0608, 0.0870, 0.0125], true, 100.0, 500.0);
        assert_eq!(s.ticks(), [-0.1, -0.05, 0.0, 0.05, 0.1]);
        assert_eq!(s.x(0.0), 300.0);
        assert_eq!(s.x(-0.1), 100.0);
        assert_eq!(s.label(-0.05, true), "\u{2212}0.05");
        assert_eq!(s.label(0.1, true), "+0.10");
        assert_eq!(s.label(0.0, true), "0");
        let t = Scale::over([0.9033, 0.9724], false, 0.0, 100.0);
        assert_eq!(t.ticks(), [0.9, 0.92, 0.94, 0.96, 0.98]);
        // One value alone still has a width.
        let one = Scale::over([1.0], false, 0.0, 10.0);
        assert!(one.x(1.0) > 0.0 && one.x(1.0) < 10.0);
    }

    #[test]
    fn a_value_falls_in_one_step_of_the_colours() {
        assert_eq!(step_of(0.0, 0.0, 1.0), 0);
        assert_eq!(step_of(1.0, 0.0, 1.0), 6);
        assert_eq!(step_of(0.5, 0.0, 1.0), 3);
        assert_eq!(step_of(0.7, 0.7, 0.7), 6);
        // A few values far below the others share the worst step.
        let values = [0.0, 0.9, 0.93, 0.95, 0.96, 0.97, 0.98, 0.99, 1.0, 1.0, 1.0];
        assert_eq!(heat_floor(values), 0.9);
        assert_eq!(heat_floor([0.0, 0.0, 0.5, 1.0]), 0.0);
    }
}
