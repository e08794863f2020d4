// A plan header; core/early.hpp includes it backwards.
#pragma once
