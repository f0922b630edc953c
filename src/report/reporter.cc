#include "report/reporter.h"

namespace pmemids {

nlohmann::json Reporter::context_with(const nlohmann::json& extra) const {
  nlohmann::json c = context_;
  c.update(extra);
  return c;
}

nlohmann::json Reporter::record(const nlohmann::json& config, nlohmann::json metrics,
                                const nlohmann::json& context_extra) const {
  return make_record(context_with(context_extra), config, std::move(metrics));
}

nlohmann::json Reporter::aggregate(const nlohmann::json& config,
                                   std::span<const double> ops_per_sec,
                                   const nlohmann::json& context_extra) const {
  return make_aggregate(context_with(context_extra), config, ops_per_sec);
}

void Reporter::emit(const nlohmann::json& record) const {
  if (!out_.empty()) append_record(out_, record);
  table_.row(file_, record);
}

void Repetitions::add(nlohmann::json& record, int repetition, std::optional<double> ops_per_sec) {
  if (repetition < 0) {
    record["warmup"] = true;
  } else if (ops_per_sec) {
    measured_.push_back(*ops_per_sec);
  }
  reporter_.emit(record);
}

}  // namespace pmemids
