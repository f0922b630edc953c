// Text from outside (file contents, arguments) quoted in messages: control
// bytes and bytes that are not valid UTF-8 are written as \xNN (\n, \r and \t
// as themselves escaped), so a binary file named as a workload cannot write
// raw control sequences to the terminal. Valid UTF-8 passes unchanged.
#pragma once

#include <string>
#include <string_view>

namespace pmemids {

std::string escape_control(std::string_view s);

}  // namespace pmemids
