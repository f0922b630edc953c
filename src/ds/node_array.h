// In-place edits of one sorted array inside a tree node (keys, values or child
// pointers), made through the backend so they are persisted or logged exactly.
//
// An array holds fixed-stride elements; `tail` is how many bytes of an element
// matter (less than the stride for value slots with padding), so the last
// element of a written range is written only up to its tail.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

#include "backend/backend.h"

namespace pmemids {

struct NodeArray {
  char* base;
  size_t stride;
  size_t tail;

  char* at(uint32_t i) const { return base + size_t{i} * stride; }
  size_t span(uint32_t count) const { return count == 0 ? 0 : size_t{count - 1} * stride + tail; }

  // The bytes insert(), erase() and put() with the same arguments write (for
  // b.will_change; empty when they write nothing).
  ByteRange insert_region(uint32_t count, uint32_t pos) const {
    return {at(pos), span(count - pos + 1)};
  }
  ByteRange erase_region(uint32_t count, uint32_t pos) const {
    return {at(pos), pos + 1 < count ? span(count - pos - 1) : 0};
  }
  ByteRange put_region(uint32_t pos, uint32_t count) const { return {at(pos), span(count)}; }

  // Inserts the element staged at stage[0, stride) at position pos of an array
  // of `count` elements: elements [pos, count) move up one, in one backend write
  // of the staged range. `stage` must hold (count - pos + 1) * stride bytes.
  template <class B>
  void insert(B& b, uint32_t count, uint32_t pos, char* stage) const {
    std::memcpy(stage + stride, at(pos), span(count - pos));
    b.write(at(pos), stage, span(count - pos + 1));
  }

  // Removes position pos of an array of `count` elements: [pos + 1, count) move down.
  template <class B>
  void erase(B& b, uint32_t count, uint32_t pos) const {
    if (pos + 1 < count) b.move(at(pos), at(pos + 1), span(count - pos - 1));
  }

  // Writes `count` elements from src to positions [pos, pos + count).
  template <class B>
  void put(B& b, uint32_t pos, const void* src, uint32_t count) const {
    if (count > 0) b.write(at(pos), src, span(count));
  }
};

}  // namespace pmemids
