#include "environment.hpp"

#include "counter_random.hpp"

#include <cmath>

namespace rl {
namespace {

constexpr double kPi = 3.14159265358979323846;
constexpr double kVelocityKeep = 0.8;  // velocity retained per step
constexpr double kThrust = 0.02;       // top speed kThrust / (1 - kVelocityKeep) = 0.1 per step
constexpr double kCurrent = 0.004;
constexpr double kReachRadius = 0.15;
constexpr double kProgressReward = 2.0;
constexpr double kReachReward = 1.0;
constexpr double kThrustCost = 0.01;
constexpr std::int64_t kFeatureDirections = 10;

// Maps uniform (0,1) draws to the square [-1,1]^2 / the angle range [-pi, pi).
torch::Tensor to_square(const torch::Tensor& unit) { return unit * 2.0 - 1.0; }
torch::Tensor to_angle(const torch::Tensor& unit) { return unit * (2.0 * kPi) - kPi; }

}  // namespace

ArenaEnvironment::ArenaEnvironment(std::int64_t arenas, std::uint64_t seed, torch::TensorOptions options)
    : arenas_(arenas), seed_(seed), options_(options) {
  const torch::Tensor start = random::uniform_block(seed, random::Stream::arena_start, 0, {arenas, 6}).to(options_);
  position_ = to_square(start.slice(1, 0, 2));
  target_ = to_square(start.slice(1, 2, 4));
  rotation_ = to_angle(start.select(1, 4));
  time_ = torch::floor(start.select(1, 5) * static_cast<double>(episode_length));
  velocity_ = torch::zeros({arenas, 2}, options_);
  projection_ = random::normal_block(seed, random::Stream::observation_features, 0, {2, kFeatureDirections}).mul(2.0).to(options_);
}

torch::Tensor ArenaEnvironment::current_at(const torch::Tensor& position) const {
  const torch::Tensor x = position.select(1, 0);
  const torch::Tensor y = position.select(1, 1);
  return torch::stack({torch::sin(y * kPi), -torch::sin(x * kPi)}, 1);
}

torch::Tensor ArenaEnvironment::observe() const {
  const torch::Tensor to_target = target_ - position_;
  const torch::Tensor distance = to_target.norm(2, 1, /*keepdim=*/true);
  const torch::Tensor phase = torch::matmul(to_target, projection_) * kPi;
  return torch::cat({position_, velocity_ * 5.0, target_, to_target, distance, torch::cos(rotation_).unsqueeze(1), torch::sin(rotation_).unsqueeze(1),
                     (time_ / static_cast<double>(episode_length)).unsqueeze(1), current_at(position_), torch::sin(phase), torch::cos(phase)},
                    1);
}

torch::Tensor ArenaEnvironment::draw_events(std::int64_t steps) const {
  const auto first = static_cast<std::uint64_t>(steps_taken_ * arenas_ * event_channels);
  return random::uniform_block(seed_, random::Stream::arena_events, first, {steps, arenas_, event_channels}).to(options_);
}

StepResult ArenaEnvironment::step(const torch::Tensor& action, const torch::Tensor& events) {
  const torch::Tensor thrust = action.clamp(-1.0, 1.0);
  const torch::Tensor c = torch::cos(rotation_);
  const torch::Tensor s = torch::sin(rotation_);
  const torch::Tensor ax = thrust.select(1, 0);
  const torch::Tensor ay = thrust.select(1, 1);
  const torch::Tensor push = torch::stack({c * ax - s * ay, s * ax + c * ay}, 1);

  velocity_ = velocity_ * kVelocityKeep + push * kThrust + current_at(position_) * kCurrent;
  const torch::Tensor moved = position_ + velocity_;
  const torch::Tensor inside = moved.clamp(-1.0, 1.0);
  velocity_ = velocity_ * (moved == inside).to(velocity_.scalar_type());  // a wall stops that component
  const torch::Tensor distance_before = (target_ - position_).norm(2, 1);
  position_ = inside;
  const torch::Tensor distance_after = (target_ - position_).norm(2, 1);

  const torch::Tensor reached = distance_after < kReachRadius;
  const torch::Tensor reward =
      (distance_before - distance_after) * kProgressReward + reached.to(position_.scalar_type()) * kReachReward - thrust.pow(2).sum(1) * kThrustCost;

  // A reached target moves; an ended episode restarts the arena with a new rotation.
  time_ = time_ + 1.0;
  const torch::Tensor done = time_ >= static_cast<double>(episode_length);
  const torch::Tensor restart = done.unsqueeze(1);
  target_ = torch::where((reached | done).unsqueeze(1), to_square(events.slice(1, 0, 2)), target_);
  position_ = torch::where(restart, to_square(events.slice(1, 2, 4)), position_);
  velocity_ = torch::where(restart, torch::zeros_like(velocity_), velocity_);
  rotation_ = torch::where(done, to_angle(events.select(1, 4)), rotation_);
  time_ = torch::where(done, torch::zeros_like(time_), time_);
  ++steps_taken_;
  return StepResult{reward, done.to(position_.scalar_type())};
}

torch::Tensor ArenaEnvironment::oracle_action() const {
  const torch::Tensor direction = target_ - position_;
  const torch::Tensor unit = direction / direction.norm(2, 1, true).clamp_min(1e-6);
  // Undo the rotation: R(-theta) applied to the wanted direction.
  const torch::Tensor c = torch::cos(rotation_);
  const torch::Tensor s = torch::sin(rotation_);
  const torch::Tensor x = unit.select(1, 0);
  const torch::Tensor y = unit.select(1, 1);
  return torch::stack({c * x + s * y, -s * x + c * y}, 1);
}

}  // namespace rl
