// ShuffleChannel (domain "openge"; CANN and Caffe name the op so): ShuffleNet's channel shuffle
// as one op instead of ONNX's Reshape -> Transpose -> Reshape, which ShuffleChannelFusionPass
// replaces. With `group` g and C channels, output channel i * g + j is input channel
// j * (C / g) + i: the channels, seen as a g x (C/g) matrix, transposed.
//
//   ShuffleChannel(X) -> Y, X and Y 4-D of the same shape
//   group          int: g, > 0, dividing C
//   channels_last  int: 0 = N x C x H x W; 1 = N x H x W x C (made by ChannelsLastLayoutPass,
//                  so a shuffle between NHWC convolutions needs no layout conversion)
#pragma once
#include <vector>

#include "ops/op_registry.h"

namespace openge {

void register_shuffle_channel_ops(std::vector<OpSchema>& table);

}  // namespace openge
