//! The swarm options of a run, summarised for the report header: batches of cases share one swarm, so
//! the header says in how many batches each switch was on and the mean of each numeric option.

use std::collections::BTreeMap;

use timelaw_generators::SWARM_BATCH_CASES;

use crate::Config;

/// One line per swarm option of the run `config` describes (its seed, its cases, overlapping calls and
/// the switches it forces on), e.g. `jitter: on in 48% of 1563 batches`, `boundary_percent: mean 26 %`.
pub fn swarm_lines(config: &Config) -> Vec<String> {
    let batches = config.cases.div_ceil(SWARM_BATCH_CASES);
    let mut switches: BTreeMap<String, u64> = BTreeMap::new();
    let mut numbers: BTreeMap<String, u64> = BTreeMap::new();
    let mut order: Vec<String> = Vec::new();
    for batch in 0..batches {
        let value = serde_json::to_value(config.swarm_of(batch * SWARM_BATCH_CASES)).unwrap_or_default();
        flatten("", &value, &mut |name, leaf| {
            if !order.iter().any(|known| known == name) {
                order.push(name.to_owned());
            }
            match leaf {
                serde_json::Value::Bool(on) => *switches.entry(name.to_owned()).or_default() += u64::from(*on),
                serde_json::Value::Number(n) => *numbers.entry(name.to_owned()).or_default() += n.as_u64().unwrap_or(0),
                _ => {}
            }
        });
    }
    let mut lines = vec![format!("batches: {batches} of {SWARM_BATCH_CASES} cases, options drawn per batch")];
    for name in order {
        if let Some(on) = switches.get(&name) {
            lines.push(format!("{name}: on in {}% of batches", on * 100 / batches.max(1)));
        } else if let Some(sum) = numbers.get(&name) {
            let unit = if name.ends_with("percent") { " %" } else { "" };
            lines.push(format!("{name}: mean {}{unit}", sum / batches.max(1)));
        }
    }
    lines
}

fn flatten(prefix: &str, value: &serde_json::Value, visit: &mut impl FnMut(&str, &serde_json::Value)) {
    match value {
        serde_json::Value::Object(fields) => {
            for (key, inner) in fields {
                let name = if prefix.is_empty() { key.clone() } else { format!("{prefix}.{key}") };
                flatten(&name, inner, visit);
            }
        }
        leaf => visit(prefix, leaf),
    }
}
